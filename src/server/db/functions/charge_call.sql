-- Charges one call (docs/decisions/028, 054); src/server/modules/ledger/charges.ts calls it, and
-- charge_calls and charge_calls_prepaid are its batch forms. A tool at a flat price (`p_price`
-- null) takes `p_amount` from the balance. A tool with a free quota or packages (`p_price` a
-- unit's price from the balance; `p_amount` unused) draws the call's units from the user's lots of
-- that tool usable at the call's time, in a fixed order (this period's free quota, made here when
-- `p_free_units` > 0, then packages and grants soonest expiring first, then oldest), and takes
-- what they do not cover from the balance at `p_price` a unit, or with `p_stop` refuses the call
-- (prepaid_exhausted). The balance must cover what is taken from it and the key's spend limit
-- (lifetime, or the day's or month's in Beijing time) allow it. Writes the ledger entry, the key's
-- spend, the usage row (pending: a hold until settle_call; or succeeded, for a built-in tool that
-- already answered) and each lot's draw, recorded on the usage row when one package or grant paid
-- all the prepaid units, else with a `lot_moves` row per lot; a refused call writes nothing.
-- The user's row is locked before the lots are read and every writer that takes units out of a
-- lot holds that lock, so the lots are read without locks of their own; under it a call the first
-- lot in draw order pays whole (most calls) is drawn, counted and written in one statement. The prepaid columns are
-- null for a flat-priced tool; `o_prepaid_draws` says where the units came from, in draw order, as
-- `source:units` pairs joined by commas (for the metrics).
CREATE OR REPLACE FUNCTION "charge_call"(
  "p_user_id" bigint, "p_key_id" bigint, "p_tool_id" text, "p_units" bigint, "p_amount" bigint,
  "p_request_id" text, "p_created_at" timestamptz, "p_http_status" int, "p_latency" int,
  "p_completed_at" timestamptz, "p_price" bigint DEFAULT NULL, "p_free_units" bigint DEFAULT 0,
  "p_free_from" timestamptz DEFAULT NULL, "p_free_until" timestamptz DEFAULT NULL, "p_stop" boolean DEFAULT false
) RETURNS TABLE ("o_outcome" text, "o_usage_id" bigint, "o_balance_after" bigint, "o_prepaid_units" bigint, "o_prepaid_left" bigint, "o_prepaid_draws" text)
LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $$
DECLARE
  "amount" bigint;
  "balance" bigint;
  "usage_id" bigint;
  "counted_period" timestamptz;
  "lot" record;
  "need" bigint := "p_units";
  "take" bigint;
  "left_before" bigint;
  -- The lots drawn from and what each gave, in draw order (null: none).
  "lot_ids" bigint[];
  "takes" bigint[];
  "draws" text;
  -- The lot recorded on the usage row: a package or grant that paid all the prepaid units (null: lot_moves rows record the draws).
  "row_lot" bigint;
BEGIN
  IF "p_price" IS NOT NULL THEN
    SELECT u.balance INTO "balance" FROM users u WHERE u.id = "p_user_id" FOR UPDATE;
    IF "p_free_units" > 0 THEN
      INSERT INTO unit_lots (user_id, tool_id, source, label, units_granted, units_left, effective_at, expires_at, created_at, origin)
        VALUES ("p_user_id", "p_tool_id", 'free', 'free', "p_free_units", "p_free_units", "p_free_from", "p_free_until", "p_created_at",
                'free:' || to_char("p_free_from" AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'))
        ON CONFLICT (user_id, tool_id, origin) DO NOTHING;
    END IF;
    -- Most calls are paid whole by the first lot in draw order: one statement draws them, counts the
    -- key's use and writes the usage row (and a free lot's move). A key that refuses the call has
    -- its units put back. Otherwise the loop below.
    IF "p_units" > 0 THEN
      WITH "first" AS (
             SELECT l.id, (sum(l.units_left) OVER ())::bigint AS total FROM unit_lots l
              WHERE l.user_id = "p_user_id" AND l.tool_id = "p_tool_id" AND l.units_left > 0
                AND l.effective_at <= "p_created_at" AND l.expires_at > "p_created_at" AND l.refunded_at IS NULL
              ORDER BY (l.source = 'free') DESC, l.expires_at, l.id LIMIT 1),
           "d" AS (
             UPDATE unit_lots l SET units_left = l.units_left - "p_units" FROM "first" f
              WHERE l.id = f.id AND l.units_left >= "p_units"
              RETURNING l.id, l.source, f.total),
           "k" AS (
             UPDATE api_keys k SET
                 last_used_at = greatest(k.last_used_at, "p_created_at"),
                 period_start = CASE WHEN k.spend_limit_period <> 'lifetime'
                                      AND (k.period_start IS NULL OR spend_period_start(k.spend_limit_period, "p_created_at") > k.period_start)
                                     THEN spend_period_start(k.spend_limit_period, "p_created_at") ELSE k.period_start END,
                 period_spent = CASE WHEN k.spend_limit_period <> 'lifetime'
                                      AND (k.period_start IS NULL OR spend_period_start(k.spend_limit_period, "p_created_at") > k.period_start)
                                     THEN 0 ELSE k.period_spent END
              WHERE k.id = "p_key_id" AND EXISTS (SELECT FROM "d")
                AND (k.spend_limit IS NULL
                     OR CASE WHEN k.spend_limit_period = 'lifetime' THEN k.spent
                             WHEN k.period_start IS NULL OR spend_period_start(k.spend_limit_period, "p_created_at") > k.period_start THEN 0
                             ELSE k.period_spent END <= k.spend_limit)
              RETURNING CASE WHEN k.spend_limit_period <> 'lifetime' THEN k.period_start END AS counted_period),
           "r" AS (
             INSERT INTO usage_records (user_id, api_key_id, tool_id, units, amount, status, request_id, created_at, http_status, latency_ms,
                                        completed_at, spend_period_start, prepaid_units, drawn_lot_id, drawn_lot_units)
               SELECT "p_user_id", "p_key_id", "p_tool_id", "p_units", 0,
                      CASE WHEN "p_http_status" IS NULL THEN 'pending' ELSE 'succeeded' END::usage_status,
                      "p_request_id", "p_created_at", "p_http_status", "p_latency", "p_completed_at", k.counted_period, "p_units",
                      CASE WHEN d.source <> 'free' THEN d.id END, CASE WHEN d.source <> 'free' THEN "p_units" ELSE 0 END
                 FROM "d", "k"
               RETURNING id),
           "m" AS (
             INSERT INTO lot_moves (lot_id, usage_id, units, kind, created_at)
               SELECT d.id, r.id, "p_units", 'draw', "p_created_at" FROM "d", "r" WHERE d.source = 'free')
      SELECT d.id, d.source, d.total, r.id AS r_id INTO "lot" FROM "d" LEFT JOIN "r" ON true;
      IF "lot".id IS NOT NULL THEN
        IF "lot".r_id IS NOT NULL THEN
          RETURN QUERY SELECT 'ok'::text, "lot".r_id, "balance", "p_units", "lot".total - "p_units", "lot".source || ':' || "p_units";
          RETURN;
        END IF;
        UPDATE unit_lots SET units_left = units_left + "p_units" WHERE id = "lot".id;
        IF NOT EXISTS (SELECT FROM api_keys WHERE id = "p_key_id") THEN
          RAISE EXCEPTION 'charge for a missing user or key (%)', "p_request_id";
        END IF;
        RETURN QUERY SELECT 'spend_limit_reached'::text, NULL::bigint, NULL::bigint, NULL::bigint, "lot".total, NULL::text;
        RETURN;
      END IF;
    END IF;
    "left_before" := 0;
    "draws" := '';
    FOR "lot" IN
      SELECT l.id, l.units_left, l.source FROM unit_lots l
       WHERE l.user_id = "p_user_id" AND l.tool_id = "p_tool_id" AND l.units_left > 0
         AND l.effective_at <= "p_created_at" AND l.expires_at > "p_created_at" AND l.refunded_at IS NULL
       ORDER BY (l.source = 'free') DESC, l.expires_at, l.id
    LOOP
      "left_before" := "left_before" + "lot".units_left;
      IF "need" > 0 THEN
        "take" := least("lot".units_left, "need");
        "need" := "need" - "take";
        "lot_ids" := "lot_ids" || "lot".id;
        "takes" := "takes" || "take";
        "draws" := concat_ws(',', nullif("draws", ''), "lot".source || ':' || "take");
        "row_lot" := CASE WHEN cardinality("lot_ids") = 1 AND "lot".source <> 'free' THEN "lot".id END;
      END IF;
    END LOOP;
    IF "need" > 0 AND "p_stop" THEN
      RETURN QUERY SELECT 'prepaid_exhausted'::text, NULL::bigint, NULL::bigint, NULL::bigint, "left_before", NULL::text;
      RETURN;
    END IF;
    "amount" := "need" * "p_price";
  ELSE
    "amount" := "p_amount";
  END IF;

  -- No row leaves the balance null: a missing user, or a balance that does not cover the call.
  IF "amount" > 0 THEN
    UPDATE users SET balance = users.balance - "amount"
      WHERE users.id = "p_user_id" AND users.balance >= "amount"
      RETURNING users.balance INTO "balance";
  ELSIF "p_price" IS NULL THEN
    SELECT u.balance INTO "balance" FROM users u WHERE u.id = "p_user_id";
  END IF;
  IF "balance" IS NULL THEN
    IF NOT EXISTS (SELECT FROM users WHERE id = "p_user_id") OR NOT EXISTS (SELECT FROM api_keys WHERE id = "p_key_id") THEN
      RAISE EXCEPTION 'charge for a missing user or key (%)', "p_request_id";
    END IF;
    RETURN QUERY SELECT 'insufficient_balance'::text, NULL::bigint, NULL::bigint, NULL::bigint, "left_before", NULL::text;
    RETURN;
  END IF;

  -- A call in a later day or month than the key's counted period starts a new one at 0; the limit
  -- counts the period's spend, or the lifetime's.
  UPDATE api_keys k SET
      spent = k.spent + "amount",
      last_used_at = greatest(k.last_used_at, "p_created_at"),
      period_start = CASE WHEN k.spend_limit_period <> 'lifetime'
                           AND (k.period_start IS NULL OR spend_period_start(k.spend_limit_period, "p_created_at") > k.period_start)
                          THEN spend_period_start(k.spend_limit_period, "p_created_at") ELSE k.period_start END,
      period_spent = CASE WHEN k.spend_limit_period <> 'lifetime'
                           AND (k.period_start IS NULL OR spend_period_start(k.spend_limit_period, "p_created_at") > k.period_start)
                          THEN 0 ELSE k.period_spent END + "amount"
    WHERE k.id = "p_key_id"
      AND (k.spend_limit IS NULL
           OR "amount" + CASE WHEN k.spend_limit_period = 'lifetime' THEN k.spent
                              WHEN k.period_start IS NULL OR spend_period_start(k.spend_limit_period, "p_created_at") > k.period_start THEN 0
                              ELSE k.period_spent END <= k.spend_limit)
    RETURNING CASE WHEN k.spend_limit_period <> 'lifetime' THEN k.period_start END INTO "counted_period";
  IF NOT FOUND THEN
    IF NOT EXISTS (SELECT FROM api_keys WHERE id = "p_key_id") THEN
      RAISE EXCEPTION 'charge for a missing user or key (%)', "p_request_id";
    END IF;
    IF "amount" > 0 THEN
      UPDATE users SET balance = users.balance + "amount" WHERE users.id = "p_user_id";
    END IF;
    RETURN QUERY SELECT 'spend_limit_reached'::text, NULL::bigint, NULL::bigint, NULL::bigint, "left_before", NULL::text;
    RETURN;
  END IF;

  IF "amount" > 0 THEN
    INSERT INTO ledger_entries (user_id, amount, balance_after, kind, method, reference, idempotency_key, created_at)
      VALUES ("p_user_id", -"amount", "balance", 'charge', "p_tool_id", "p_request_id", 'usage:' || "p_request_id", "p_created_at");
  END IF;
  INSERT INTO usage_records (user_id, api_key_id, tool_id, units, amount, status, request_id, created_at, http_status, latency_ms, completed_at,
                             spend_period_start, prepaid_units, drawn_lot_id, drawn_lot_units)
    VALUES ("p_user_id", "p_key_id", "p_tool_id", "p_units", "amount",
            CASE WHEN "p_http_status" IS NULL THEN 'pending' ELSE 'succeeded' END::usage_status,
            "p_request_id", "p_created_at", "p_http_status", "p_latency", "p_completed_at",
            "counted_period", "p_units" - "need", "row_lot", CASE WHEN "row_lot" IS NOT NULL THEN "takes"[1] ELSE 0 END)
    RETURNING id INTO "usage_id";
  -- A lot at a time, by its id: cheaper than a join with the arrays for the one lot most calls draw.
  FOR k IN 1..coalesce(cardinality("lot_ids"), 0) LOOP
    UPDATE unit_lots SET units_left = units_left - "takes"[k] WHERE id = "lot_ids"[k];
    IF "row_lot" IS NULL THEN
      INSERT INTO lot_moves (lot_id, usage_id, units, kind, created_at) VALUES ("lot_ids"[k], "usage_id", "takes"[k], 'draw', "p_created_at");
    END IF;
  END LOOP;
  RETURN QUERY SELECT 'ok'::text, "usage_id", "balance",
                      CASE WHEN "p_price" IS NOT NULL THEN "p_units" - "need" END, "left_before" - ("p_units" - "need"), "draws";
END;
$$;
