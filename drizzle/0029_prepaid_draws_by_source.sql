-- The charges of tools with plans say which sources (free, package, grant) their units came from, so the metrics count prepaid units by source (issue 41). Their result gains a column, so each is dropped first. Written by npm run db:function-migration from src/server/db/functions/charge_call_prepaid.sql, src/server/db/functions/charge_calls_prepaid.sql.
DROP FUNCTION "charge_call_prepaid"(bigint, bigint, text, bigint, bigint, text, timestamptz, int, int, timestamptz, bigint, timestamptz, timestamptz, boolean);
--> statement-breakpoint
-- Charges one call of a tool with a free quota or packages (docs/decisions/054): draws its units
-- from the user's lots of that tool that are usable at the call's time, in a fixed order (this
-- period's free quota, then packages and grants soonest expiring first, then oldest), and charges
-- what they do not cover to the balance at `p_price` a unit through charge_call, whose rules
-- (balance, spend limit, usage row) apply unchanged. `p_stop`: a call the lots do not cover is
-- refused (prepaid_exhausted) instead. A refused call writes nothing. The user's row is locked
-- first, then the lots: every writer of lots takes them in that order. `o_prepaid_draws` says where
-- the units came from, in draw order, as `source:units` pairs joined by commas (for the metrics).
CREATE OR REPLACE FUNCTION "charge_call_prepaid"(
  "p_user_id" bigint, "p_key_id" bigint, "p_tool_id" text, "p_units" bigint, "p_price" bigint,
  "p_request_id" text, "p_created_at" timestamptz, "p_http_status" int, "p_latency" int,
  "p_completed_at" timestamptz, "p_free_units" bigint, "p_free_from" timestamptz, "p_free_until" timestamptz,
  "p_stop" boolean
) RETURNS TABLE ("o_outcome" text, "o_usage_id" bigint, "o_balance_after" bigint, "o_prepaid_units" bigint, "o_prepaid_left" bigint, "o_prepaid_draws" text)
LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $$
DECLARE
  "lot" record;
  "lot_ids" bigint[] := '{}';
  "takes" bigint[] := '{}';
  "draws" text[] := '{}';
  "need" bigint := "p_units";
  "take" bigint;
  "left_before" bigint := 0;
  "charged" record;
BEGIN
  PERFORM FROM users WHERE id = "p_user_id" FOR UPDATE;
  IF "p_free_units" > 0 THEN
    INSERT INTO unit_lots (user_id, tool_id, source, label, units_granted, units_left, effective_at, expires_at, created_at, origin)
      VALUES ("p_user_id", "p_tool_id", 'free', 'free', "p_free_units", "p_free_units", "p_free_from", "p_free_until", "p_created_at",
              'free:' || to_char("p_free_from" AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'))
      ON CONFLICT (user_id, tool_id, origin) DO NOTHING;
  END IF;
  FOR "lot" IN
    SELECT l.id, l.units_left, l.source FROM unit_lots l
     WHERE l.user_id = "p_user_id" AND l.tool_id = "p_tool_id" AND l.units_left > 0
       AND l.effective_at <= "p_created_at" AND l.expires_at > "p_created_at" AND l.refunded_at IS NULL
     ORDER BY (l.source = 'free') DESC, l.expires_at, l.id
     FOR UPDATE
  LOOP
    "left_before" := "left_before" + "lot".units_left;
    IF "need" > 0 THEN
      "take" := least("lot".units_left, "need");
      "lot_ids" := "lot_ids" || "lot".id;
      "takes" := "takes" || "take";
      "draws" := "draws" || ("lot".source || ':' || "take");
      "need" := "need" - "take";
    END IF;
  END LOOP;

  IF "need" > 0 AND "p_stop" THEN
    RETURN QUERY SELECT 'prepaid_exhausted'::text, NULL::bigint, NULL::bigint, NULL::bigint, "left_before", NULL::text;
    RETURN;
  END IF;
  SELECT * INTO "charged" FROM charge_call("p_user_id", "p_key_id", "p_tool_id", "p_units", "need" * "p_price", "p_request_id",
                                           "p_created_at", "p_http_status", "p_latency", "p_completed_at", "p_units" - "need");
  IF "charged".o_outcome <> 'ok' THEN
    RETURN QUERY SELECT "charged".o_outcome, NULL::bigint, NULL::bigint, NULL::bigint, "left_before", NULL::text;
    RETURN;
  END IF;
  IF "need" < "p_units" THEN
    UPDATE unit_lots SET units_left = unit_lots.units_left - d.take
      FROM unnest("lot_ids", "takes") AS d(id, take) WHERE unit_lots.id = d.id;
    INSERT INTO lot_moves (lot_id, usage_id, units, kind, created_at)
      SELECT d.id, "charged".o_usage_id, d.take, 'draw', "p_created_at" FROM unnest("lot_ids", "takes") WITH ORDINALITY AS d(id, take, i) ORDER BY d.i;
  END IF;
  RETURN QUERY SELECT 'ok'::text, "charged".o_usage_id, "charged".o_balance_after, "p_units" - "need", "left_before" - ("p_units" - "need"),
                      array_to_string("draws", ',');
END;
$$;
--> statement-breakpoint
DROP FUNCTION "charge_calls_prepaid"(bigint[], bigint[], text[], bigint[], bigint[], text[], timestamptz[], int[], int[], timestamptz[], bigint[], timestamptz[], timestamptz[], boolean[]);
--> statement-breakpoint
-- Charges a batch of calls of tools with free quotas or packages in one statement: the batch form
-- of charge_call_prepaid (docs/decisions/054), as charge_calls is charge_call's. Locks the users in
-- id order, makes the free quotas' lots the batch needs, then takes each call in arrival order:
-- its units from its user's usable lots in draw order (what it takes is gone before the next call
-- looks), the rest charged through charge_calls with the other calls' rests. A call charge_calls
-- refuses, or a key that stops when its lots do not cover the call, gives back what it drew and
-- writes nothing; the others' lot moves and prepaid units are written with their usage rows. (A
-- call refused that way gives its units back after the later calls of its batch were drawn, so
-- they may have drawn from a later source than it leaves free: never more than it had.)
-- `o_prepaid_draws`: where a charged call's units came from, as charge_call_prepaid says it.
CREATE OR REPLACE FUNCTION "charge_calls_prepaid"(
  "p_user_ids" bigint[], "p_key_ids" bigint[], "p_tool_ids" text[], "p_units" bigint[], "p_prices" bigint[],
  "p_request_ids" text[], "p_created_ats" timestamptz[], "p_http_statuses" int[], "p_latencies" int[],
  "p_completed_ats" timestamptz[], "p_free_units" bigint[], "p_free_froms" timestamptz[], "p_free_untils" timestamptz[],
  "p_stops" boolean[]
) RETURNS TABLE ("o_outcome" text, "o_usage_id" bigint, "o_balance_after" bigint, "o_prepaid_units" bigint, "o_prepaid_left" bigint, "o_prepaid_draws" text)
LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $$
DECLARE
  "n" int := coalesce(cardinality("p_user_ids"), 0);
  "lot" record;
  "need" bigint;
  "take" bigint;
  "left_before" bigint;
  "item_lots" bigint[];
  "item_takes" bigint[];
  "item_draws" text[];
  "draws" text[] := array_fill(NULL::text, ARRAY["n"]);
  "draw_items" int[] := '{}';
  "draw_lots" bigint[] := '{}';
  "draw_takes" bigint[] := '{}';
  "prepaid" bigint[] := array_fill(0::bigint, ARRAY["n"]);
  "lefts" bigint[] := array_fill(0::bigint, ARRAY["n"]);
  "outcomes" text[] := array_fill(NULL::text, ARRAY["n"]);
  "usage_ids" bigint[] := array_fill(NULL::bigint, ARRAY["n"]);
  "afters" bigint[] := array_fill(NULL::bigint, ARRAY["n"]);
  "charged" int[] := '{}';
  "c_user_ids" bigint[] := '{}';
  "c_key_ids" bigint[] := '{}';
  "c_tool_ids" text[] := '{}';
  "c_units" bigint[] := '{}';
  "c_amounts" bigint[] := '{}';
  "c_request_ids" text[] := '{}';
  "c_created_ats" timestamptz[] := '{}';
  "c_http_statuses" int[] := '{}';
  "c_latencies" int[] := '{}';
  "c_completed_ats" timestamptz[] := '{}';
  "c_outcomes" text[];
  "c_usage_ids" bigint[];
  "c_afters" bigint[];
BEGIN
  PERFORM FROM users WHERE id = ANY("p_user_ids") ORDER BY id FOR UPDATE;
  INSERT INTO unit_lots (user_id, tool_id, source, label, units_granted, units_left, effective_at, expires_at, created_at, origin)
    SELECT DISTINCT ON (f.user_id, f.tool_id, f.free_from) f.user_id, f.tool_id, 'free', 'free', f.free_units, f.free_units, f.free_from, f.free_until, f.created_at,
           'free:' || to_char(f.free_from AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')
      FROM unnest("p_user_ids", "p_tool_ids", "p_free_units", "p_free_froms", "p_free_untils", "p_created_ats") AS f(user_id, tool_id, free_units, free_from, free_until, created_at)
     WHERE f.free_units > 0
     ORDER BY f.user_id, f.tool_id, f.free_from, f.created_at
    ON CONFLICT (user_id, tool_id, origin) DO NOTHING;

  FOR i IN 1.."n" LOOP
    "need" := "p_units"[i];
    "left_before" := 0;
    "item_lots" := '{}';
    "item_takes" := '{}';
    "item_draws" := '{}';
    FOR "lot" IN
      SELECT l.id, l.units_left, l.source FROM unit_lots l
       WHERE l.user_id = "p_user_ids"[i] AND l.tool_id = "p_tool_ids"[i] AND l.units_left > 0
         AND l.effective_at <= "p_created_ats"[i] AND l.expires_at > "p_created_ats"[i] AND l.refunded_at IS NULL
       ORDER BY (l.source = 'free') DESC, l.expires_at, l.id
       FOR UPDATE
    LOOP
      "left_before" := "left_before" + "lot".units_left;
      IF "need" > 0 THEN
        "take" := least("lot".units_left, "need");
        "item_lots" := "item_lots" || "lot".id;
        "item_takes" := "item_takes" || "take";
        "item_draws" := "item_draws" || ("lot".source || ':' || "take");
        "need" := "need" - "take";
      END IF;
    END LOOP;
    IF "need" > 0 AND "p_stops"[i] THEN
      "outcomes"[i] := 'prepaid_exhausted';
      "lefts"[i] := "left_before";
      CONTINUE;
    END IF;
    IF cardinality("item_lots") > 0 THEN
      UPDATE unit_lots SET units_left = unit_lots.units_left - d.take FROM unnest("item_lots", "item_takes") AS d(id, take) WHERE unit_lots.id = d.id;
      "draw_items" := "draw_items" || array_fill(i, ARRAY[cardinality("item_lots")]);
      "draw_lots" := "draw_lots" || "item_lots";
      "draw_takes" := "draw_takes" || "item_takes";
    END IF;
    "prepaid"[i] := "p_units"[i] - "need";
    "draws"[i] := array_to_string("item_draws", ',');
    "lefts"[i] := "left_before" - "prepaid"[i];
    "charged" := "charged" || i;
    "c_user_ids" := "c_user_ids" || "p_user_ids"[i];
    "c_key_ids" := "c_key_ids" || "p_key_ids"[i];
    "c_tool_ids" := "c_tool_ids" || "p_tool_ids"[i];
    "c_units" := "c_units" || "p_units"[i];
    "c_amounts" := "c_amounts" || ("need" * "p_prices"[i]);
    "c_request_ids" := "c_request_ids" || "p_request_ids"[i];
    "c_created_ats" := "c_created_ats" || "p_created_ats"[i];
    "c_http_statuses" := "c_http_statuses" || "p_http_statuses"[i];
    "c_latencies" := "c_latencies" || "p_latencies"[i];
    "c_completed_ats" := "c_completed_ats" || "p_completed_ats"[i];
  END LOOP;

  IF cardinality("charged") > 0 THEN
    SELECT array_agg(c.o_outcome ORDER BY c.k), array_agg(c.o_usage_id ORDER BY c.k), array_agg(c.o_balance_after ORDER BY c.k)
      INTO "c_outcomes", "c_usage_ids", "c_afters"
      FROM charge_calls("c_user_ids", "c_key_ids", "c_tool_ids", "c_units", "c_amounts", "c_request_ids", "c_created_ats",
                        "c_http_statuses", "c_latencies", "c_completed_ats") WITH ORDINALITY AS c(o_outcome, o_usage_id, o_balance_after, k);
    FOR k IN 1..cardinality("charged") LOOP
      "outcomes"["charged"[k]] := "c_outcomes"[k];
      "usage_ids"["charged"[k]] := "c_usage_ids"[k];
      "afters"["charged"[k]] := "c_afters"[k];
    END LOOP;
  END IF;

  -- A call charge_calls refused gives its draws back; the others' draws are written as moves.
  UPDATE unit_lots SET units_left = unit_lots.units_left + b.back
    FROM (SELECT d.lot, sum(d.take) AS back FROM unnest("draw_items", "draw_lots", "draw_takes") AS d(item, lot, take)
           WHERE "outcomes"[d.item] <> 'ok' GROUP BY d.lot) AS b
   WHERE unit_lots.id = b.lot;
  INSERT INTO lot_moves (lot_id, usage_id, units, kind, created_at)
    SELECT d.lot, "usage_ids"[d.item], d.take, 'draw', "p_created_ats"[d.item]
      FROM unnest("draw_items", "draw_lots", "draw_takes") WITH ORDINALITY AS d(item, lot, take, o)
     WHERE "outcomes"[d.item] = 'ok' ORDER BY d.o;
  UPDATE usage_records SET prepaid_units = p.units
    FROM unnest("usage_ids", "prepaid", "outcomes") AS p(id, units, outcome)
   WHERE usage_records.id = p.id AND p.outcome = 'ok' AND p.units > 0;

  RETURN QUERY SELECT r.outcome, r.usage_id, r.balance_after,
                      CASE WHEN r.outcome = 'ok' THEN r.prepaid END,
                      CASE WHEN r.outcome = 'ok' THEN r.left_after ELSE r.left_after + r.prepaid END,
                      CASE WHEN r.outcome = 'ok' THEN r.draws END
    FROM unnest("outcomes", "usage_ids", "afters", "prepaid", "lefts", "draws") WITH ORDINALITY
      AS r(outcome, usage_id, balance_after, prepaid, left_after, draws, i)
    ORDER BY r.i;
END;
$$;
