-- Spend limits that reset (issue 21 §3): a key's limit counts over its lifetime (as before), or per
-- day or per month in Beijing time. The key keeps its spend in the current period beside its
-- lifetime spend; charge_calls moves both under its row lock.
CREATE TYPE "spend_limit_period" AS ENUM('lifetime', 'day', 'month');
--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "spend_limit_period" "spend_limit_period" DEFAULT 'lifetime' NOT NULL;
--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "period_spent" bigint DEFAULT 0 NOT NULL;
--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "period_start" timestamp with time zone;
--> statement-breakpoint
-- When the period holding p_at began (Beijing time is UTC+8 all year); null for 'lifetime'.
-- src/shared/spend-period.ts computes the same for the console.
CREATE FUNCTION "spend_period_start"("p_period" "spend_limit_period", "p_at" timestamptz) RETURNS timestamptz
LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE "p_period"
    WHEN 'day' THEN (date_trunc('day', ("p_at" AT TIME ZONE 'UTC') + interval '8 hours') - interval '8 hours') AT TIME ZONE 'UTC'
    WHEN 'month' THEN (date_trunc('month', ("p_at" AT TIME ZONE 'UTC') + interval '8 hours') - interval '8 hours') AT TIME ZONE 'UTC'
  END
$$;
--> statement-breakpoint
-- charge_calls as drizzle/0009 wrote it, with the lines marked "0013" added: the key's period is
-- locked and read with its spend, a call in a new period resets the period's spend to 0, the limit
-- is checked against the period's spend unless the period is 'lifetime', and the period's spend
-- and start are written back with the lifetime spend. Nothing else changed.
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
  "key_periods" spend_limit_period[];      -- 0013
  "key_period_spent" bigint[];             -- 0013
  "key_period_starts" timestamptz[];       -- 0013
  "call_period" timestamptz;               -- 0013
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
         coalesce((SELECT array_agg(spend_limit_period ORDER BY id) FROM lk), '{}'),          -- 0013
         coalesce((SELECT array_agg(period_spent ORDER BY id) FROM lk), '{}'),                -- 0013
         coalesce((SELECT array_agg(period_start ORDER BY id) FROM lk), '{}')                 -- 0013
    INTO "user_ids", "balances", "key_ids", "key_spent", "key_limits", "key_periods", "key_period_spent", "key_period_starts";
  "debits" := array_fill(0::bigint, ARRAY[cardinality("user_ids")]);

  FOR i IN 1.."n" LOOP
    "u" := array_position("user_ids", "p_user_ids"[i]);
    "k" := array_position("key_ids", "p_key_ids"[i]);
    IF "u" IS NULL OR "k" IS NULL THEN
      RAISE EXCEPTION 'charge for a missing user or key (%)', "p_request_ids"[i];
    END IF;
    -- 0013: a call in a later day or month than the key's counted period starts a new one at 0; a
    -- call stamped before it (a batch spanning midnight) counts in the newer period.
    IF "key_periods"["k"] <> 'lifetime' THEN
      "call_period" := spend_period_start("key_periods"["k"], "p_created_ats"[i]);
      IF "key_period_starts"["k"] IS NULL OR "call_period" > "key_period_starts"["k"] THEN
        "key_period_starts"["k"] := "call_period";
        "key_period_spent"["k"] := 0;
      END IF;
    END IF;
    IF "balances"["u"] < "p_amounts"[i] THEN
      "outcomes"[i] := 'insufficient_balance';
    -- 0013: the limit counts the period's spend, or the lifetime's.
    ELSIF "key_limits"["k"] IS NOT NULL AND "p_amounts"[i] + (CASE WHEN "key_periods"["k"] = 'lifetime'
                                             THEN "key_spent"["k"] ELSE "key_period_spent"["k"] END) > "key_limits"["k"] THEN
      "outcomes"[i] := 'spend_limit_reached';
    ELSE
      IF "debits"["u"] = 0 AND "p_amounts"[i] > 0 THEN
        "debited" := "debited" + 1;
      END IF;
      "balances"["u"] := "balances"["u"] - "p_amounts"[i];
      "debits"["u"] := "debits"["u"] + "p_amounts"[i];
      "key_spent"["k"] := "key_spent"["k"] + "p_amounts"[i];
      "key_period_spent"["k"] := "key_period_spent"["k"] + "p_amounts"[i];  -- 0013
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
                             period_spent = p.spent, period_start = p.start  -- 0013
         FROM (SELECT "p_key_ids"[i] AS id, sum("p_amounts"[i]) AS total, max("p_created_ats"[i]) AS last_at
               FROM generate_series(1, "n") AS i WHERE "outcomes"[i] = 'ok' GROUP BY 1) AS d,
              unnest("key_ids", "key_period_spent", "key_period_starts") AS p(id, spent, start)  -- 0013
         WHERE api_keys.id = d.id AND p.id = d.id),
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
--> statement-breakpoint
-- Low-balance alerts (issue 21 §2): settings, an outbox of deliveries found from the ledger after
-- charges commit, and each webhook attempt.
CREATE TYPE "alert_channel" AS ENUM('sms', 'webhook');
--> statement-breakpoint
CREATE TYPE "alert_delivery_status" AS ENUM('pending', 'delivered', 'failed', 'skipped');
--> statement-breakpoint
CREATE TABLE "alert_settings" (
  "user_id" bigint PRIMARY KEY NOT NULL REFERENCES "users"("id"),
  "threshold" bigint,
  "watched_since" timestamp with time zone NOT NULL,
  "webhook_url" text,
  "webhook_secret_sealed" text,
  "updated_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "alert_deliveries" (
  "id" bigserial PRIMARY KEY NOT NULL,
  "user_id" bigint NOT NULL REFERENCES "users"("id"),
  "event_id" text NOT NULL,
  "event_type" text NOT NULL,
  "channel" "alert_channel" NOT NULL,
  "ledger_entry_id" bigint,
  "payload" text NOT NULL,
  "status" "alert_delivery_status" DEFAULT 'pending' NOT NULL,
  "attempts" integer DEFAULT 0 NOT NULL,
  "next_attempt_at" timestamp with time zone NOT NULL,
  "last_error" text,
  "created_at" timestamp with time zone NOT NULL,
  "delivered_at" timestamp with time zone
);
--> statement-breakpoint
CREATE UNIQUE INDEX "alert_deliveries_entry_channel_idx" ON "alert_deliveries" ("ledger_entry_id", "channel");
--> statement-breakpoint
CREATE INDEX "alert_deliveries_due_idx" ON "alert_deliveries" ("next_attempt_at") WHERE "status" = 'pending';
--> statement-breakpoint
CREATE INDEX "alert_deliveries_user_idx" ON "alert_deliveries" ("user_id", "created_at");
--> statement-breakpoint
CREATE TABLE "alert_attempts" (
  "id" bigserial PRIMARY KEY NOT NULL,
  "delivery_id" bigint NOT NULL REFERENCES "alert_deliveries"("id"),
  "attempted_at" timestamp with time zone NOT NULL,
  "http_status" integer,
  "error" text
);
--> statement-breakpoint
CREATE INDEX "alert_attempts_delivery_idx" ON "alert_attempts" ("delivery_id");
--> statement-breakpoint
CREATE TABLE "alert_scan" (
  "id" integer PRIMARY KEY NOT NULL,
  "scanned_to" timestamp with time zone NOT NULL
);
