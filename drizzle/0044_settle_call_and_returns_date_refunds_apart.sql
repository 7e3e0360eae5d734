-- A refunded call records when it was refunded (refunded_at, drizzle/0043) and the units it gives back to lots are dated then, not when it ended: an operator's refund of an ended call no longer writes over completed_at, so the return trigger cannot date by it. Written by npm run db:function-migration from src/server/db/functions/return_prepaid_units.sql, src/server/db/functions/settle_call.sql.
-- Gives back to their lots the prepaid units a call no longer needs, whichever writer settles it
-- (settle_call, a batch refund, the abandoned-call sweep, an operator's refund): all of them when
-- the call is refunded, those beyond its final units when it used fewer than it held. A call's draws
-- are its rows of the `lot_ledger` view, net of what it gave back. Units go
-- back to the lots last drawn first, so what a call used is what it drew first; a lot that has
-- expired meanwhile takes them back and they expire with it. The return is dated when the call was
-- refunded (`refunded_at`: an operator's refund may come long after the call ended), else when it
-- ended (a call that used fewer units than it held). Runs as the BEFORE UPDATE trigger
-- usage_records_return_prepaid_units (drizzle/0025), only on rows with prepaid units.
CREATE OR REPLACE FUNCTION "return_prepaid_units"() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  "keep" bigint := CASE WHEN NEW.status = 'refunded' THEN 0 ELSE least(NEW.units, OLD.prepaid_units) END;
  "give" bigint := OLD.prepaid_units - "keep";
  "drawn" record;
  "back" bigint;
BEGIN
  IF "give" <= 0 THEN
    RETURN NEW;
  END IF;
  FOR "drawn" IN
    SELECT m.lot_id, sum(m.units) AS net
      FROM lot_ledger m WHERE m.usage_id = OLD.id
     GROUP BY m.lot_id HAVING sum(m.units) > 0 ORDER BY min(m.o) DESC
  LOOP
    EXIT WHEN "give" = 0;
    "back" := least("drawn".net, "give");
    UPDATE unit_lots SET units_left = unit_lots.units_left + "back" WHERE unit_lots.id = "drawn".lot_id;
    INSERT INTO lot_moves (lot_id, usage_id, units, kind, created_at)
      VALUES ("drawn".lot_id, OLD.id, -"back", 'return', coalesce(NEW.refunded_at, NEW.completed_at, now()));
    "give" := "give" - "back";
  END LOOP;
  IF "give" <> 0 THEN
    RAISE EXCEPTION 'call % has fewer prepaid units drawn than it records', OLD.request_id;
  END IF;
  NEW.prepaid_units := "keep";
  RETURN NEW;
END;
$$;
--> statement-breakpoint
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
