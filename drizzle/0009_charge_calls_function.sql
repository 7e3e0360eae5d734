-- Charges a batch of gateway calls in one statement (docs/decisions/012): locks the users and keys
-- involved in id order, admits each call in arrival order while the locked balance covers it and
-- its key's spend limit allows it, then writes balances, ledger entries, key spend and usage
-- records. A refused call writes nothing. One row per call, in the order given. Generic plans:
-- the statements' shapes never change, and planning them anew each call cost more than the rows.
CREATE FUNCTION "charge_calls"(
  "p_user_ids" bigint[], "p_key_ids" bigint[], "p_tool_ids" text[], "p_units" bigint[], "p_amounts" bigint[],
  "p_request_ids" text[], "p_created_ats" timestamptz[], "p_http_statuses" int[], "p_latencies" int[],
  "p_completed_ats" timestamptz[]
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
       lk AS (SELECT id, spent, spend_limit FROM api_keys
              WHERE id = ANY("p_key_ids") AND (SELECT count(*) FROM lu) >= 0 ORDER BY id FOR UPDATE)
  SELECT coalesce((SELECT array_agg(id ORDER BY id) FROM lu), '{}'), coalesce((SELECT array_agg(balance ORDER BY id) FROM lu), '{}'),
         coalesce((SELECT array_agg(id ORDER BY id) FROM lk), '{}'), coalesce((SELECT array_agg(spent ORDER BY id) FROM lk), '{}'),
         coalesce((SELECT array_agg(spend_limit ORDER BY id) FROM lk), '{}')
    INTO "user_ids", "balances", "key_ids", "key_spent", "key_limits";
  "debits" := array_fill(0::bigint, ARRAY[cardinality("user_ids")]);

  FOR i IN 1.."n" LOOP
    "u" := array_position("user_ids", "p_user_ids"[i]);
    "k" := array_position("key_ids", "p_key_ids"[i]);
    IF "u" IS NULL OR "k" IS NULL THEN
      RAISE EXCEPTION 'charge for a missing user or key (%)', "p_request_ids"[i];
    END IF;
    IF "balances"["u"] < "p_amounts"[i] THEN
      "outcomes"[i] := 'insufficient_balance';
    ELSIF "key_limits"["k"] IS NOT NULL AND "key_spent"["k"] + "p_amounts"[i] > "key_limits"["k"] THEN
      "outcomes"[i] := 'spend_limit_reached';
    ELSE
      IF "debits"["u"] = 0 AND "p_amounts"[i] > 0 THEN
        "debited" := "debited" + 1;
      END IF;
      "balances"["u"] := "balances"["u"] - "p_amounts"[i];
      "debits"["u"] := "debits"["u"] + "p_amounts"[i];
      "key_spent"["k"] := "key_spent"["k"] + "p_amounts"[i];
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
         UPDATE api_keys SET spent = api_keys.spent + d.total, last_used_at = greatest(api_keys.last_used_at, d.last_at)
         FROM (SELECT "p_key_ids"[i] AS id, sum("p_amounts"[i]) AS total, max("p_created_ats"[i]) AS last_at
               FROM generate_series(1, "n") AS i WHERE "outcomes"[i] = 'ok' GROUP BY 1) AS d
         WHERE api_keys.id = d.id),
       usage AS (
         INSERT INTO usage_records (user_id, api_key_id, tool_id, units, amount, status, request_id, created_at, http_status, latency_ms, completed_at)
         SELECT "p_user_ids"[i], "p_key_ids"[i], "p_tool_ids"[i], "p_units"[i], "p_amounts"[i],
                CASE WHEN "p_http_statuses"[i] IS NULL THEN 'pending' ELSE 'succeeded' END::usage_status,
                "p_request_ids"[i], "p_created_ats"[i], "p_http_statuses"[i], "p_latencies"[i], "p_completed_ats"[i]
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
