-- Charges a batch of calls in one statement (docs/decisions/012): locks the users, then the keys,
-- in id order, admits each call in arrival order while the locked balance covers it and its key's
-- spend limit allows it, then writes balances, ledger entries, key spend and usage rows at once.
-- A refused call writes nothing. src/server/modules/ledger/charges.ts calls it for two calls or more.
-- `p_prepaid_units`: the units charge_calls_prepaid drew from lots for each call, written with its
-- usage row; `p_drawn_lot_ids` and `p_drawn_lot_units`: the one package or grant that paid them, if one did.
CREATE OR REPLACE FUNCTION "charge_calls"(
  "p_user_ids" bigint[], "p_key_ids" bigint[], "p_tool_ids" text[], "p_units" bigint[], "p_amounts" bigint[],
  "p_request_ids" text[], "p_created_ats" timestamptz[], "p_http_statuses" int[], "p_latencies" int[],
  "p_completed_ats" timestamptz[], "p_prepaid_units" bigint[] DEFAULT NULL, "p_drawn_lot_ids" bigint[] DEFAULT NULL,
  "p_drawn_lot_units" bigint[] DEFAULT NULL
) RETURNS TABLE ("o_outcome" text, "o_usage_id" bigint, "o_balance_after" bigint)
LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $$
DECLARE
  "n" int := coalesce(cardinality("p_user_ids"), 0);
  "user_ids" bigint[];
  "balances" bigint[];
  "debits" bigint[];
  "key_ids" bigint[];
  "key_spent" bigint[];
  "key_limits" bigint[];
  "key_periods" spend_limit_period[];
  "key_period_spent" bigint[];
  "key_period_starts" timestamptz[];
  "call_period" timestamptz;
  "call_period_start" timestamptz;
  "call_period_spent" bigint;
  "counted_periods" timestamptz[] := array_fill(NULL::timestamptz, ARRAY["n"]);
  "outcomes" text[] := array_fill(NULL::text, ARRAY["n"]);
  "afters" bigint[] := array_fill(NULL::bigint, ARRAY["n"]);
  "u" int;
  "k" int;
  "debited" int := 0;
  "written" int;
  "usage_ids" bigint[];
BEGIN
  -- One statement locks the users, then the keys: the keys' scan waits on reading every user.
  WITH lu AS (SELECT id, balance FROM users WHERE id = ANY("p_user_ids") ORDER BY id FOR UPDATE),
       lk AS (SELECT id, spent, spend_limit, spend_limit_period, period_spent, period_start FROM api_keys
              WHERE id = ANY("p_key_ids") AND (SELECT count(*) FROM lu) >= 0 ORDER BY id FOR UPDATE)
  SELECT coalesce((SELECT array_agg(id ORDER BY id) FROM lu), '{}'), coalesce((SELECT array_agg(balance ORDER BY id) FROM lu), '{}'),
         coalesce((SELECT array_agg(id ORDER BY id) FROM lk), '{}'), coalesce((SELECT array_agg(spent ORDER BY id) FROM lk), '{}'),
         coalesce((SELECT array_agg(spend_limit ORDER BY id) FROM lk), '{}'),
         coalesce((SELECT array_agg(spend_limit_period ORDER BY id) FROM lk), '{}'),
         coalesce((SELECT array_agg(period_spent ORDER BY id) FROM lk), '{}'),
         coalesce((SELECT array_agg(period_start ORDER BY id) FROM lk), '{}')
    INTO "user_ids", "balances", "key_ids", "key_spent", "key_limits", "key_periods", "key_period_spent", "key_period_starts";
  "debits" := array_fill(0::bigint, ARRAY[cardinality("user_ids")]);

  FOR i IN 1.."n" LOOP
    "u" := array_position("user_ids", "p_user_ids"[i]);
    "k" := array_position("key_ids", "p_key_ids"[i]);
    IF "u" IS NULL OR "k" IS NULL THEN
      RAISE EXCEPTION 'charge for a missing user or key (%)', "p_request_ids"[i];
    END IF;
    -- The period this call counts in is worked out aside and written only if the call is
    -- admitted. A call in a later day or month than the key's counted period starts a new one at
    -- 0; a call stamped before it (a batch spanning midnight) counts in the newer period.
    "call_period_start" := "key_period_starts"["k"];
    "call_period_spent" := "key_period_spent"["k"];
    IF "key_periods"["k"] <> 'lifetime' THEN
      "call_period" := spend_period_start("key_periods"["k"], "p_created_ats"[i]);
      IF "call_period_start" IS NULL OR "call_period" > "call_period_start" THEN
        "call_period_start" := "call_period";
        "call_period_spent" := 0;
      END IF;
    END IF;
    IF "balances"["u"] < "p_amounts"[i] THEN
      "outcomes"[i] := 'insufficient_balance';
    -- The limit counts the period's spend, or the lifetime's.
    ELSIF "key_limits"["k"] IS NOT NULL AND "p_amounts"[i] + (CASE WHEN "key_periods"["k"] = 'lifetime'
                                             THEN "key_spent"["k"] ELSE "call_period_spent" END) > "key_limits"["k"] THEN
      "outcomes"[i] := 'spend_limit_reached';
    ELSE
      IF "debits"["u"] = 0 AND "p_amounts"[i] > 0 THEN
        "debited" := "debited" + 1;
      END IF;
      "balances"["u"] := "balances"["u"] - "p_amounts"[i];
      "debits"["u"] := "debits"["u"] + "p_amounts"[i];
      "key_spent"["k"] := "key_spent"["k"] + "p_amounts"[i];
      "key_period_starts"["k"] := "call_period_start";
      "key_period_spent"["k"] := "call_period_spent" + "p_amounts"[i];
      IF "key_periods"["k"] <> 'lifetime' THEN
        "counted_periods"[i] := "call_period_start";
      END IF;
      "outcomes"[i] := 'ok';
      "afters"[i] := "balances"["u"];
    END IF;
  END LOOP;

  -- One statement writes everything. The rows are locked, so every debit applies; the count of
  -- debited users is a guard, and failing it rolls back.
  WITH debit AS (
         UPDATE users SET balance = users.balance - d.total
         FROM unnest("user_ids", "debits") AS d(id, total)
         WHERE users.id = d.id AND d.total > 0 AND users.balance >= d.total
         RETURNING users.id),
       entries AS (
         INSERT INTO ledger_entries (user_id, amount, balance_after, kind, method, reference, idempotency_key, created_at)
         SELECT "p_user_ids"[i], -"p_amounts"[i], "afters"[i], 'charge', "p_tool_ids"[i], "p_request_ids"[i],
                'usage:' || "p_request_ids"[i], "p_created_ats"[i]
         FROM generate_series(1, "n") AS i
         WHERE "outcomes"[i] = 'ok' AND "p_amounts"[i] > 0
         ORDER BY i),
       spend AS (
         UPDATE api_keys SET spent = api_keys.spent + d.total, last_used_at = greatest(api_keys.last_used_at, d.last_at),
                             period_spent = p.spent, period_start = p.start
         FROM (SELECT "p_key_ids"[i] AS id, sum("p_amounts"[i]) AS total, max("p_created_ats"[i]) AS last_at
               FROM generate_series(1, "n") AS i WHERE "outcomes"[i] = 'ok' GROUP BY 1) AS d,
              unnest("key_ids", "key_period_spent", "key_period_starts") AS p(id, spent, start)
         WHERE api_keys.id = d.id AND p.id = d.id),
       usage AS (
         INSERT INTO usage_records (user_id, api_key_id, tool_id, units, amount, status, request_id, created_at, http_status, latency_ms, completed_at,
                                    spend_period_start, prepaid_units, drawn_lot_id, drawn_lot_units)
         SELECT "p_user_ids"[i], "p_key_ids"[i], "p_tool_ids"[i], "p_units"[i], "p_amounts"[i],
                CASE WHEN "p_http_statuses"[i] IS NULL THEN 'pending' ELSE 'succeeded' END::usage_status,
                "p_request_ids"[i], "p_created_ats"[i], "p_http_statuses"[i], "p_latencies"[i], "p_completed_ats"[i],
                "counted_periods"[i], coalesce("p_prepaid_units"[i], 0), "p_drawn_lot_ids"[i], coalesce("p_drawn_lot_units"[i], 0)
         FROM generate_series(1, "n") AS i
         WHERE "outcomes"[i] = 'ok'
         ORDER BY i
         RETURNING id, request_id)
  SELECT (SELECT count(*) FROM debit),
         array_agg(usage.id ORDER BY g.i)
    INTO "written", "usage_ids"
    FROM generate_series(1, "n") AS g(i) LEFT JOIN usage ON usage.request_id = "p_request_ids"[g.i] AND "outcomes"[g.i] = 'ok';
  IF "written" <> "debited" THEN
    RAISE EXCEPTION 'a locked balance changed under the batch';
  END IF;

  RETURN QUERY SELECT r.outcome, r.usage_id, r.balance_after
    FROM unnest("outcomes", "usage_ids", "afters") WITH ORDINALITY AS r(outcome, usage_id, balance_after, i)
    ORDER BY r.i;
END;
$$;
