-- Nothing changes in what these functions do (issue 35 §1): their texts now live in
-- src/server/db/functions/, and this copy, written by npm run db:function-migration, drops the
-- "-- 0013/0014/0019" marks that earlier copies left to show what each migration added.
-- Charges one call: takes its amount from the balance while the balance covers it and the key's
-- spend limit (lifetime, or the day's or month's in Beijing time) allows it, and writes the ledger
-- entry, the key's spend and the usage row (pending: a hold until settle_call; or succeeded, for a
-- built-in tool that already answered). A refused call writes nothing. charge_calls' rules for a
-- batch of one, without arrays (docs/decisions/028); src/server/modules/ledger/charges.ts calls it.
CREATE OR REPLACE FUNCTION "charge_call"(
  "p_user_id" bigint, "p_key_id" bigint, "p_tool_id" text, "p_units" bigint, "p_amount" bigint,
  "p_request_id" text, "p_created_at" timestamptz, "p_http_status" int, "p_latency" int,
  "p_completed_at" timestamptz
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
                             spend_period_start)
    VALUES ("p_user_id", "p_key_id", "p_tool_id", "p_units", "p_amount",
            CASE WHEN "p_http_status" IS NULL THEN 'pending' ELSE 'succeeded' END::usage_status,
            "p_request_id", "p_created_at", "p_http_status", "p_latency", "p_completed_at",
            "counted_period")
    RETURNING id INTO "usage_id";
  RETURN QUERY SELECT 'ok'::text, "usage_id", "balance";
END;
$$;
--> statement-breakpoint
-- Charges a batch of calls in one statement (docs/decisions/012): locks the users, then the keys,
-- in id order, admits each call in arrival order while the locked balance covers it and its key's
-- spend limit allows it, then writes balances, ledger entries, key spend and usage rows at once.
-- A refused call writes nothing. src/server/modules/ledger/charges.ts calls it for two calls or more.
CREATE OR REPLACE FUNCTION "charge_calls"(
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
                                    spend_period_start)
         SELECT "p_user_ids"[i], "p_key_ids"[i], "p_tool_ids"[i], "p_units"[i], "p_amounts"[i],
                CASE WHEN "p_http_statuses"[i] IS NULL THEN 'pending' ELSE 'succeeded' END::usage_status,
                "p_request_ids"[i], "p_created_ats"[i], "p_http_statuses"[i], "p_latencies"[i], "p_completed_ats"[i],
                "counted_periods"[i]
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
--> statement-breakpoint
-- Settles one pending call (docs/decisions/033): gives back `p_refund` (all of a failed call's hold,
-- or what a per-unit call did not use), takes it off the key's spend and off the period the hold
-- was counted in, and writes how the call ended. false: the call was settled before, and nothing
-- moved. The batch form is refundInTransaction in src/server/modules/ledger/refunds.ts.
CREATE OR REPLACE FUNCTION "settle_call"(
  "p_usage_id" bigint, "p_user_id" bigint, "p_refund" bigint, "p_request_id" text, "p_at" timestamptz,
  "p_final_status" usage_status, "p_units" bigint, "p_http_status" int, "p_latency" int
) RETURNS boolean
LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $$
DECLARE
  "key_id" bigint;
  "charged_at" timestamptz;
  "counted_period" timestamptz;
  "balance" bigint;
BEGIN
  SELECT u.api_key_id, u.created_at, u.spend_period_start INTO "key_id", "charged_at", "counted_period"
    FROM usage_records u WHERE u.id = "p_usage_id" AND u.status = 'pending' FOR UPDATE;
  IF NOT FOUND THEN
    RETURN false;
  END IF;
  IF "p_refund" > 0 THEN
    UPDATE users SET balance = users.balance + "p_refund" WHERE users.id = "p_user_id" RETURNING users.balance INTO "balance";
    IF NOT FOUND THEN
      RAISE EXCEPTION 'balance changed under a row lock: settlement rolled back (%)', "p_request_id";
    END IF;
    INSERT INTO ledger_entries (user_id, amount, balance_after, kind, method, reference, idempotency_key, created_at)
    VALUES ("p_user_id", "p_refund", "balance", 'refund', 'gateway', "p_request_id", 'refund:' || "p_request_id", "p_at");
    -- The refund leaves the period the hold was counted in; a row written before usage rows
    -- recorded it (null) counted in its own stamp's period.
    UPDATE api_keys SET spent = greatest(api_keys.spent - "p_refund", 0),
      period_spent = CASE WHEN coalesce("counted_period", spend_period_start(api_keys.spend_limit_period, "charged_at")) = api_keys.period_start
                          THEN greatest(api_keys.period_spent - "p_refund", 0) ELSE api_keys.period_spent END
    WHERE api_keys.id = "key_id";
  END IF;
  UPDATE usage_records SET status = "p_final_status", amount = usage_records.amount - "p_refund", units = "p_units",
    http_status = "p_http_status", latency_ms = "p_latency", completed_at = "p_at"
  WHERE usage_records.id = "p_usage_id";
  RETURN true;
END;
$$;
