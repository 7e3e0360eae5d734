-- charge_calls_prepaid reads the lots its batch may draw without locking them (every writer that takes units out of a lot holds its user's lock, which the batch takes first, decision 054), and makes free-quota lots only when the batch offers one: a lock record per lot and a statement fewer a batch. Written by npm run db:function-migration from src/server/db/functions/charge_calls_prepaid.sql.
-- Charges a batch of calls of tools with free quotas or packages in one statement: the batch form
-- of charge_call's draws (docs/decisions/054), as charge_calls is of its flat charge. Locks the users in
-- id order, makes the free quotas' lots the batch is offered, and reads the lots the batch may draw
-- without locks of their own: every writer that takes units out of a lot holds its user's lock.
-- Then each user's calls of a tool, in arrival order, take their units from that user's usable lots
-- of it in draw order, each seeing what the calls before it left (a loop over arrays in memory: a
-- statement of window functions and joins cost more than the loop's few steps a call), the rests
-- are charged through charge_calls (which writes each usage row with its prepaid units, and the lot
-- that paid them when one package or grant did), and one statement writes the lots' draws and the
-- moves of the others. A call charge_calls refuses writes nothing and
-- draws nothing; the later calls of its batch were drawn as if it had, so they may have drawn from
-- a later source than it leaves free: never more than it had. Where drawing ahead does not hold (a
-- lot starts or ends between the batch's first and last call, or a key that stops would find its
-- lots short), the calls are charged one after another through charge_call, in the same transaction.
-- `o_prepaid_draws`: where a charged call's units came from, as charge_call says it.
CREATE OR REPLACE FUNCTION "charge_calls_prepaid"(
  "p_user_ids" bigint[], "p_key_ids" bigint[], "p_tool_ids" text[], "p_units" bigint[], "p_prices" bigint[],
  "p_request_ids" text[], "p_created_ats" timestamptz[], "p_http_statuses" int[], "p_latencies" int[],
  "p_completed_ats" timestamptz[], "p_free_units" bigint[], "p_free_froms" timestamptz[], "p_free_untils" timestamptz[],
  "p_stops" boolean[]
) RETURNS TABLE ("o_outcome" text, "o_usage_id" bigint, "o_balance_after" bigint, "o_prepaid_units" bigint, "o_prepaid_left" bigint, "o_prepaid_draws" text)
LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $$
DECLARE
  "n" int := coalesce(cardinality("p_user_ids"), 0);
  "first_at" timestamptz;
  "last_at" timestamptz;
  "lot_ids" bigint[];
  "lot_users" bigint[];
  "lot_tools" text[];
  "lot_sources" text[];
  "lot_lefts" bigint[];
  "lots_throughout" boolean;
  "lot_count" int;
  "lefts_now" bigint[];
  "draw_items" int[] := '{}';
  "draw_lots" bigint[] := '{}';
  "draw_takes" bigint[] := '{}';
  "drawn_count" int := 0;
  -- Per draw: recorded on its call's usage row (a package or grant that paid all the call's prepaid units), else by a lot_moves row.
  "draw_on_rows" boolean[] := '{}';
  "row_lots" bigint[] := array_fill(NULL::bigint, ARRAY["n"]);
  "row_units" bigint[] := array_fill(0::bigint, ARRAY["n"]);
  "first_draw" int;
  "first_source" text;
  "prepaid" bigint[] := array_fill(0::bigint, ARRAY["n"]);
  "lefts" bigint[] := array_fill(0::bigint, ARRAY["n"]);
  "draws" text[] := array_fill(''::text, ARRAY["n"]);
  "need" bigint;
  "part" bigint;
  "group_left" bigint;
  "j" int;
  "short_stop" boolean := false;
  "outcomes" text[];
  "usage_ids" bigint[];
  "afters" bigint[];
BEGIN
  PERFORM FROM users WHERE id = ANY("p_user_ids") ORDER BY id FOR UPDATE;
  IF 0 < ANY("p_free_units") THEN
    INSERT INTO unit_lots (user_id, tool_id, source, label, units_granted, units_left, effective_at, expires_at, created_at, origin)
      SELECT DISTINCT ON (f.user_id, f.tool_id, f.free_from) f.user_id, f.tool_id, 'free', 'free', f.free_units, f.free_units, f.free_from, f.free_until, f.created_at,
             'free:' || to_char(f.free_from AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')
        FROM unnest("p_user_ids", "p_tool_ids", "p_free_units", "p_free_froms", "p_free_untils", "p_created_ats") AS f(user_id, tool_id, free_units, free_from, free_until, created_at)
       WHERE f.free_units > 0
       ORDER BY f.user_id, f.tool_id, f.free_from, f.created_at
      ON CONFLICT (user_id, tool_id, origin) DO NOTHING;
  END IF;
  SELECT min(a), max(a) INTO "first_at", "last_at" FROM unnest("p_created_ats") AS a;

  -- The lots any call of the batch could draw, in draw order; `lots_throughout`: every one usable at every call's time.
  SELECT coalesce(array_agg(l.id ORDER BY l.o), '{}'), coalesce(array_agg(l.user_id ORDER BY l.o), '{}'), coalesce(array_agg(l.tool_id ORDER BY l.o), '{}'),
         coalesce(array_agg(l.source::text ORDER BY l.o), '{}'), coalesce(array_agg(l.units_left ORDER BY l.o), '{}'),
         coalesce(bool_and(l.effective_at <= "first_at" AND l.expires_at > "last_at"), true)
    INTO "lot_ids", "lot_users", "lot_tools", "lot_sources", "lot_lefts", "lots_throughout"
    FROM (SELECT l.id, l.user_id, l.tool_id, l.source, l.units_left, l.effective_at, l.expires_at,
                 row_number() OVER (ORDER BY l.user_id, l.tool_id, (l.source = 'free') DESC, l.expires_at, l.id) AS o
            FROM unit_lots l
           WHERE (l.user_id, l.tool_id) IN (SELECT DISTINCT u, t FROM unnest("p_user_ids", "p_tool_ids") AS c(u, t))
             AND l.units_left > 0 AND l.refunded_at IS NULL AND l.effective_at <= "last_at" AND l.expires_at > "first_at") AS l;
  "lot_count" := cardinality("lot_ids");

  -- Each call's draws, in arrival order: its units from its user's lots of its tool in draw order,
  -- each call seeing what the ones before it left.
  "lefts_now" := "lot_lefts";
  FOR i IN 1.."n" LOOP
    "need" := "p_units"[i];
    "group_left" := 0;
    "draws"[i] := '';
    "first_draw" := "drawn_count" + 1;
    "j" := array_position("lot_users", "p_user_ids"[i]);
    WHILE "j" IS NOT NULL AND "j" <= "lot_count" AND "lot_users"["j"] = "p_user_ids"[i] LOOP
      IF "lot_tools"["j"] = "p_tool_ids"[i] THEN
        IF "need" > 0 AND "lefts_now"["j"] > 0 THEN
          "part" := least("need", "lefts_now"["j"]);
          "need" := "need" - "part";
          "lefts_now"["j"] := "lefts_now"["j"] - "part";
          "drawn_count" := "drawn_count" + 1;
          "draw_items"["drawn_count"] := i;
          "draw_lots"["drawn_count"] := "lot_ids"["j"];
          "draw_takes"["drawn_count"] := "part";
          "draw_on_rows"["drawn_count"] := false;
          IF "drawn_count" = "first_draw" THEN
            "first_source" := "lot_sources"["j"];
          END IF;
          "draws"[i] := "draws"[i] || CASE WHEN "draws"[i] = '' THEN '' ELSE ',' END || "lot_sources"["j"] || ':' || "part";
        END IF;
        "group_left" := "group_left" + "lefts_now"["j"];
      END IF;
      "j" := "j" + 1;
    END LOOP;
    IF "drawn_count" = "first_draw" AND "first_source" <> 'free' THEN
      "draw_on_rows"["first_draw"] := true;
      "row_lots"[i] := "draw_lots"["first_draw"];
      "row_units"[i] := "draw_takes"["first_draw"];
    END IF;
    "prepaid"[i] := "p_units"[i] - "need";
    "lefts"[i] := "group_left";
    IF "p_stops"[i] AND "need" > 0 THEN
      "short_stop" := true;
    END IF;
  END LOOP;

  IF NOT "lots_throughout" OR "short_stop" THEN
    RETURN QUERY SELECT c.* FROM generate_series(1, "n") AS i,
      LATERAL charge_call("p_user_ids"[i], "p_key_ids"[i], "p_tool_ids"[i], "p_units"[i], "p_units"[i] * "p_prices"[i], "p_request_ids"[i],
                          "p_created_ats"[i], "p_http_statuses"[i], "p_latencies"[i], "p_completed_ats"[i],
                          "p_prices"[i], "p_free_units"[i], "p_free_froms"[i], "p_free_untils"[i], "p_stops"[i]) AS c
      ORDER BY i;
    RETURN;
  END IF;

  SELECT array_agg(c.o_outcome ORDER BY c.k), array_agg(c.o_usage_id ORDER BY c.k), array_agg(c.o_balance_after ORDER BY c.k)
    INTO "outcomes", "usage_ids", "afters"
    FROM charge_calls("p_user_ids", "p_key_ids", "p_tool_ids", "p_units",
                      (SELECT array_agg(("p_units"[i] - "prepaid"[i]) * "p_prices"[i] ORDER BY i) FROM generate_series(1, "n") AS i),
                      "p_request_ids", "p_created_ats", "p_http_statuses", "p_latencies", "p_completed_ats", "prepaid", "row_lots", "row_units")
         WITH ORDINALITY AS c(o_outcome, o_usage_id, o_balance_after, k);

  WITH drawn AS (
         SELECT d.lot, d.take, d.item, d.on_row, d.o FROM unnest("draw_items", "draw_lots", "draw_takes", "draw_on_rows") WITH ORDINALITY AS d(item, lot, take, on_row, o)
          WHERE "outcomes"[d.item] = 'ok'),
       lots AS (
         UPDATE unit_lots SET units_left = unit_lots.units_left - t.total
           FROM (SELECT lot, sum(take) AS total FROM drawn GROUP BY lot) AS t
          WHERE unit_lots.id = t.lot)
  INSERT INTO lot_moves (lot_id, usage_id, units, kind, created_at)
    SELECT d.lot, "usage_ids"[d.item], d.take, 'draw', "p_created_ats"[d.item] FROM drawn d WHERE NOT d.on_row ORDER BY d.o;

  RETURN QUERY SELECT r.outcome, r.usage_id, r.balance_after,
                      CASE WHEN r.outcome = 'ok' THEN r.prepaid END,
                      CASE WHEN r.outcome = 'ok' THEN r.left_after ELSE r.left_after + r.prepaid END,
                      CASE WHEN r.outcome = 'ok' THEN r.draws END
    FROM unnest("outcomes", "usage_ids", "afters", "prepaid", "lefts", "draws") WITH ORDINALITY
      AS r(outcome, usage_id, balance_after, prepaid, left_after, draws, i)
    ORDER BY r.i;
END;
$$;
