-- A lone call's settlement (money back for a failed call, or the unused part of a hold) in one
-- statement: what refundBatch's transaction does for a batch (metering.ts refundInTransaction),
-- for one call, in the same lock order (the usage row, then the user's row, then the key's), so
-- a per-unit call's settlement costs one round trip instead of eight (docs/decisions/033).
-- src/server/modules/gateway/metering.test.ts holds the two to the same outcomes and rows.
CREATE FUNCTION "settle_call"(
  "p_usage_id" bigint, "p_user_id" bigint, "p_refund" bigint, "p_request_id" text, "p_at" timestamptz,
  "p_final_status" usage_status, "p_units" bigint, "p_http_status" int, "p_latency" int
) RETURNS boolean
LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $$
DECLARE
  "key_id" bigint;
  "charged_at" timestamptz;
  "balance" bigint;
BEGIN
  SELECT u.api_key_id, u.created_at INTO "key_id", "charged_at"
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
    UPDATE api_keys SET spent = greatest(api_keys.spent - "p_refund", 0),
      period_spent = CASE WHEN spend_period_start(api_keys.spend_limit_period, "charged_at") = api_keys.period_start
                          THEN greatest(api_keys.period_spent - "p_refund", 0) ELSE api_keys.period_spent END
    WHERE api_keys.id = "key_id";
  END IF;
  UPDATE usage_records SET status = "p_final_status", amount = usage_records.amount - "p_refund", units = "p_units",
    http_status = "p_http_status", latency_ms = "p_latency", completed_at = "p_at"
  WHERE usage_records.id = "p_usage_id";
  RETURN true;
END;
$$;
