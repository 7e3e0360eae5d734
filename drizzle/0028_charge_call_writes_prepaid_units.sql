-- charge_call writes the units charge_call_prepaid drew from lots with the usage row (a new last argument, 0 by default), so a lone call of a tool with plans writes its usage row once instead of inserting then updating it. The argument list changes, so the old function goes first.
DROP FUNCTION "charge_call"(bigint, bigint, text, bigint, bigint, text, timestamptz, int, int, timestamptz);
--> statement-breakpoint
-- Charges one call: takes its amount from the balance while the balance covers it and the key's
-- spend limit (lifetime, or the day's or month's in Beijing time) allows it, and writes the ledger
-- entry, the key's spend and the usage row (pending: a hold until settle_call; or succeeded, for a
-- built-in tool that already answered). A refused call writes nothing. charge_calls' rules for a
-- batch of one, without arrays (docs/decisions/028); src/server/modules/ledger/charges.ts calls it.
-- `p_prepaid_units`: the units charge_call_prepaid drew from lots for it, written with its usage row.
CREATE OR REPLACE FUNCTION "charge_call"(
  "p_user_id" bigint, "p_key_id" bigint, "p_tool_id" text, "p_units" bigint, "p_amount" bigint,
  "p_request_id" text, "p_created_at" timestamptz, "p_http_status" int, "p_latency" int,
  "p_completed_at" timestamptz, "p_prepaid_units" bigint DEFAULT 0
) RETURNS TABLE ("o_outcome" text, "o_usage_id" bigint, "o_balance_after" bigint)
LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $$
DECLARE
  "balance" bigint;
  "usage_id" bigint;
  "counted_period" timestamptz;
BEGIN
  IF "p_amount" > 0 THEN
    UPDATE users SET balance = users.balance - "p_amount"
      WHERE users.id = "p_user_id" AND users.balance >= "p_amount"
      RETURNING users.balance INTO "balance";
  ELSE
    SELECT u.balance INTO "balance" FROM users u WHERE u.id = "p_user_id";
  END IF;
  IF NOT FOUND THEN
    IF NOT EXISTS (SELECT FROM users WHERE id = "p_user_id") OR NOT EXISTS (SELECT FROM api_keys WHERE id = "p_key_id") THEN
      RAISE EXCEPTION 'charge for a missing user or key (%)', "p_request_id";
    END IF;
    RETURN QUERY SELECT 'insufficient_balance'::text, NULL::bigint, NULL::bigint;
    RETURN;
  END IF;

  -- A call in a later day or month than the key's counted period starts a new one at 0; the limit
  -- counts the period's spend, or the lifetime's.
  UPDATE api_keys k SET
      spent = k.spent + "p_amount",
      last_used_at = greatest(k.last_used_at, "p_created_at"),
      period_start = CASE WHEN k.spend_limit_period <> 'lifetime'
                           AND (k.period_start IS NULL OR spend_period_start(k.spend_limit_period, "p_created_at") > k.period_start)
                          THEN spend_period_start(k.spend_limit_period, "p_created_at") ELSE k.period_start END,
      period_spent = CASE WHEN k.spend_limit_period <> 'lifetime'
                           AND (k.period_start IS NULL OR spend_period_start(k.spend_limit_period, "p_created_at") > k.period_start)
                          THEN 0 ELSE k.period_spent END + "p_amount"
    WHERE k.id = "p_key_id"
      AND (k.spend_limit IS NULL
           OR "p_amount" + CASE WHEN k.spend_limit_period = 'lifetime' THEN k.spent
                                WHEN k.period_start IS NULL OR spend_period_start(k.spend_limit_period, "p_created_at") > k.period_start THEN 0
                                ELSE k.period_spent END <= k.spend_limit)
    RETURNING CASE WHEN k.spend_limit_period <> 'lifetime' THEN k.period_start END INTO "counted_period";
  IF NOT FOUND THEN
    IF NOT EXISTS (SELECT FROM api_keys WHERE id = "p_key_id") THEN
      RAISE EXCEPTION 'charge for a missing user or key (%)', "p_request_id";
    END IF;
    IF "p_amount" > 0 THEN
      UPDATE users SET balance = users.balance + "p_amount" WHERE users.id = "p_user_id";
    END IF;
    RETURN QUERY SELECT 'spend_limit_reached'::text, NULL::bigint, NULL::bigint;
    RETURN;
  END IF;

  IF "p_amount" > 0 THEN
    INSERT INTO ledger_entries (user_id, amount, balance_after, kind, method, reference, idempotency_key, created_at)
      VALUES ("p_user_id", -"p_amount", "balance", 'charge', "p_tool_id", "p_request_id", 'usage:' || "p_request_id", "p_created_at");
  END IF;
  INSERT INTO usage_records (user_id, api_key_id, tool_id, units, amount, status, request_id, created_at, http_status, latency_ms, completed_at,
                             spend_period_start, prepaid_units)
    VALUES ("p_user_id", "p_key_id", "p_tool_id", "p_units", "p_amount",
            CASE WHEN "p_http_status" IS NULL THEN 'pending' ELSE 'succeeded' END::usage_status,
            "p_request_id", "p_created_at", "p_http_status", "p_latency", "p_completed_at",
            "counted_period", "p_prepaid_units")
    RETURNING id INTO "usage_id";
  RETURN QUERY SELECT 'ok'::text, "usage_id", "balance";
END;
$$;
--> statement-breakpoint
-- Charges one call of a tool with a free quota or packages (docs/decisions/054): draws its units
-- from the user's lots of that tool that are usable at the call's time, in a fixed order (this
-- period's free quota, then packages and grants soonest expiring first, then oldest), and charges
-- what they do not cover to the balance at `p_price` a unit through charge_call, whose rules
-- (balance, spend limit, usage row) apply unchanged. `p_stop`: a call the lots do not cover is
-- refused (prepaid_exhausted) instead. A refused call writes nothing. The user's row is locked
-- first, then the lots: every writer of lots takes them in that order.
CREATE OR REPLACE FUNCTION "charge_call_prepaid"(
  "p_user_id" bigint, "p_key_id" bigint, "p_tool_id" text, "p_units" bigint, "p_price" bigint,
  "p_request_id" text, "p_created_at" timestamptz, "p_http_status" int, "p_latency" int,
  "p_completed_at" timestamptz, "p_free_units" bigint, "p_free_from" timestamptz, "p_free_until" timestamptz,
  "p_stop" boolean
) RETURNS TABLE ("o_outcome" text, "o_usage_id" bigint, "o_balance_after" bigint, "o_prepaid_units" bigint, "o_prepaid_left" bigint)
LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $$
DECLARE
  "lot" record;
  "lot_ids" bigint[] := '{}';
  "takes" bigint[] := '{}';
  "need" bigint := "p_units";
  "take" bigint;
  "left_before" bigint := 0;
  "charged" record;
BEGIN
  PERFORM FROM users WHERE id = "p_user_id" FOR UPDATE;
  IF "p_free_units" > 0 THEN
    INSERT INTO unit_lots (user_id, tool_id, source, label, units_granted, units_left, effective_at, expires_at, created_at, origin)
      VALUES ("p_user_id", "p_tool_id", 'free', 'free', "p_free_units", "p_free_units", "p_free_from", "p_free_until", "p_created_at",
              'free:' || to_char("p_free_from" AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'))
      ON CONFLICT (user_id, tool_id, origin) DO NOTHING;
  END IF;
  FOR "lot" IN
    SELECT l.id, l.units_left FROM unit_lots l
     WHERE l.user_id = "p_user_id" AND l.tool_id = "p_tool_id" AND l.units_left > 0
       AND l.effective_at <= "p_created_at" AND l.expires_at > "p_created_at" AND l.refunded_at IS NULL
     ORDER BY (l.source = 'free') DESC, l.expires_at, l.id
     FOR UPDATE
  LOOP
    "left_before" := "left_before" + "lot".units_left;
    IF "need" > 0 THEN
      "take" := least("lot".units_left, "need");
      "lot_ids" := "lot_ids" || "lot".id;
      "takes" := "takes" || "take";
      "need" := "need" - "take";
    END IF;
  END LOOP;

  IF "need" > 0 AND "p_stop" THEN
    RETURN QUERY SELECT 'prepaid_exhausted'::text, NULL::bigint, NULL::bigint, NULL::bigint, "left_before";
    RETURN;
  END IF;
  SELECT * INTO "charged" FROM charge_call("p_user_id", "p_key_id", "p_tool_id", "p_units", "need" * "p_price", "p_request_id",
                                           "p_created_at", "p_http_status", "p_latency", "p_completed_at", "p_units" - "need");
  IF "charged".o_outcome <> 'ok' THEN
    RETURN QUERY SELECT "charged".o_outcome, NULL::bigint, NULL::bigint, NULL::bigint, "left_before";
    RETURN;
  END IF;
  IF "need" < "p_units" THEN
    UPDATE unit_lots SET units_left = unit_lots.units_left - d.take
      FROM unnest("lot_ids", "takes") AS d(id, take) WHERE unit_lots.id = d.id;
    INSERT INTO lot_moves (lot_id, usage_id, units, kind, created_at)
      SELECT d.id, "charged".o_usage_id, d.take, 'draw', "p_created_at" FROM unnest("lot_ids", "takes") WITH ORDINALITY AS d(id, take, i) ORDER BY d.i;
  END IF;
  RETURN QUERY SELECT 'ok'::text, "charged".o_usage_id, "charged".o_balance_after, "p_units" - "need", "left_before" - ("p_units" - "need");
END;
$$;
