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
