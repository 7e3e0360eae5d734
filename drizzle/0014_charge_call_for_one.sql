-- A lone call is charged by charge_call: charge_calls's rules for a batch of one, written without
-- its arrays, loop and ordinality joins, which cost a lone call a third of its database CPU
-- (docs/decisions/028). The rules are the same line for line as the loop body of charge_calls
-- (drizzle/0013), and src/server/modules/gateway/metering.test.ts holds the two to the same
-- outcomes and the same rows for the same calls.
CREATE FUNCTION "charge_call"(
  "p_user_id" bigint, "p_key_id" bigint, "p_tool_id" text, "p_units" bigint, "p_amount" bigint,
  "p_request_id" text, "p_created_at" timestamptz, "p_http_status" int, "p_latency" int,
  "p_completed_at" timestamptz
) RETURNS TABLE ("o_outcome" text, "o_usage_id" bigint, "o_balance_after" bigint)
LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $$
DECLARE
  "balance" bigint;
  "key_spent" bigint;
  "key_limit" bigint;
  "key_period" spend_limit_period;
  "key_period_spent" bigint;
  "key_period_start" timestamptz;
  "call_period" timestamptz;
  "usage_id" bigint;
  "debited" int;
BEGIN
  -- The user's row, then the key's: the order charge_calls locks in.
  SELECT u.balance INTO "balance" FROM users u WHERE u.id = "p_user_id" FOR UPDATE;
  SELECT k.spent, k.spend_limit, k.spend_limit_period, k.period_spent, k.period_start
    INTO "key_spent", "key_limit", "key_period", "key_period_spent", "key_period_start"
    FROM api_keys k WHERE k.id = "p_key_id" FOR UPDATE;
  IF "balance" IS NULL OR "key_period" IS NULL THEN
    RAISE EXCEPTION 'charge for a missing user or key (%)', "p_request_id";
  END IF;
  IF "key_period" <> 'lifetime' THEN
    "call_period" := spend_period_start("key_period", "p_created_at");
    IF "key_period_start" IS NULL OR "call_period" > "key_period_start" THEN
      "key_period_start" := "call_period";
      "key_period_spent" := 0;
    END IF;
  END IF;
  IF "balance" < "p_amount" THEN
    RETURN QUERY SELECT 'insufficient_balance'::text, NULL::bigint, NULL::bigint;
    RETURN;
  ELSIF "key_limit" IS NOT NULL AND "p_amount" + (CASE WHEN "key_period" = 'lifetime'
                                   THEN "key_spent" ELSE "key_period_spent" END) > "key_limit" THEN
    RETURN QUERY SELECT 'spend_limit_reached'::text, NULL::bigint, NULL::bigint;
    RETURN;
  END IF;
  "balance" := "balance" - "p_amount";

  WITH debit AS (
         UPDATE users SET balance = users.balance - "p_amount"
         WHERE users.id = "p_user_id" AND "p_amount" > 0 AND users.balance >= "p_amount"
         RETURNING users.id),
       entry AS (
         INSERT INTO ledger_entries (user_id, amount, balance_after, kind, method, reference, idempotency_key, created_at)
         SELECT "p_user_id", -"p_amount", "balance", 'charge', "p_tool_id", "p_request_id", 'usage:' || "p_request_id", "p_created_at"
         WHERE "p_amount" > 0),
       spend AS (
         UPDATE api_keys SET spent = api_keys.spent + "p_amount", last_used_at = greatest(api_keys.last_used_at, "p_created_at"),
                             period_spent = "key_period_spent" + "p_amount", period_start = "key_period_start"
         WHERE api_keys.id = "p_key_id"),
       usage AS (
         INSERT INTO usage_records (user_id, api_key_id, tool_id, units, amount, status, request_id, created_at, http_status, latency_ms, completed_at)
         VALUES ("p_user_id", "p_key_id", "p_tool_id", "p_units", "p_amount",
                 CASE WHEN "p_http_status" IS NULL THEN 'pending' ELSE 'succeeded' END::usage_status,
                 "p_request_id", "p_created_at", "p_http_status", "p_latency", "p_completed_at")
         RETURNING id)
  SELECT (SELECT count(*) FROM debit), (SELECT id FROM usage) INTO "debited", "usage_id";
  IF "debited" <> (CASE WHEN "p_amount" > 0 THEN 1 ELSE 0 END) THEN
    RAISE EXCEPTION 'a locked balance changed under the charge';
  END IF;
  RETURN QUERY SELECT 'ok'::text, "usage_id", "balance";
END;
$$;
--> statement-breakpoint
-- Every writer of the ledger moves the user's balance under its row lock in the same transaction,
-- and users are never deleted (drizzle/0010): the foreign key's check on each insert only repeated
-- what that lock proves, at a seventh of a lone call's database CPU. usage_records went the same
-- way in drizzle/0010.
ALTER TABLE "ledger_entries" DROP CONSTRAINT "ledger_entries_user_id_users_id_fk";
