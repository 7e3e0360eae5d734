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
