-- Settles one pending call (docs/decisions/033): gives back `p_refund` (all of a failed call's hold,
-- or what a per-unit call did not use), takes it off the key's spend and off the period the hold
-- was counted in, and writes how the call ended (and, refunded, when: `refunded_at`, which the
-- return trigger stamps returned units with). false: the call was settled before, and nothing
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
  "prepaid" bigint;
BEGIN
  SELECT u.api_key_id, u.created_at, u.spend_period_start, u.prepaid_units INTO "key_id", "charged_at", "counted_period", "prepaid"
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
  ELSIF "prepaid" > 0 THEN
    -- Units the call gives back go to its lots (the return trigger), which charges draw on under
    -- the user's lock: taken first here too, or a charge and this could each hold a lot the other needs.
    PERFORM FROM users WHERE users.id = "p_user_id" FOR UPDATE;
  END IF;
  UPDATE usage_records SET status = "p_final_status", amount = usage_records.amount - "p_refund", units = "p_units",
    http_status = "p_http_status", latency_ms = "p_latency", completed_at = "p_at",
    refunded_at = CASE WHEN "p_final_status" = 'refunded' THEN "p_at" END
  WHERE usage_records.id = "p_usage_id";
  RETURN true;
END;
$$;
