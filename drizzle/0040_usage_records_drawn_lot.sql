-- A call whose prepaid units one package or grant paid records that lot and its units on its usage row instead of in a lot_moves row (issue 37's plans path: a row fewer, and three index entries, per call). Functions written by npm run db:function-migration from src/server/db/functions/charge_call.sql, charge_calls.sql, charge_calls_prepaid.sql, return_prepaid_units.sql.
ALTER TABLE "usage_records" ADD COLUMN "drawn_lot_id" bigint;--> statement-breakpoint
ALTER TABLE "usage_records" ADD COLUMN "drawn_lot_units" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_records" ADD CONSTRAINT "usage_records_drawn_lot" CHECK (("usage_records"."drawn_lot_id" is null) = ("usage_records"."drawn_lot_units" = 0));
--> statement-breakpoint
-- Charges one call (docs/decisions/028, 054); src/server/modules/ledger/charges.ts calls it, and
-- charge_calls and charge_calls_prepaid are its batch forms. A tool at a flat price (`p_price`
-- null) takes `p_amount` from the balance. A tool with a free quota or packages (`p_price` a
-- unit's price from the balance; `p_amount` unused) draws the call's units from the user's lots of
-- that tool usable at the call's time, in a fixed order (this period's free quota, made here when
-- `p_free_units` > 0, then packages and grants soonest expiring first, then oldest), and takes
-- what they do not cover from the balance at `p_price` a unit, or with `p_stop` refuses the call
-- (prepaid_exhausted). The balance must cover what is taken from it and the key's spend limit
-- (lifetime, or the day's or month's in Beijing time) allow it. Writes the ledger entry, the key's
-- spend, the usage row (pending: a hold until settle_call; or succeeded, for a built-in tool that
-- already answered) and each lot's draw, recorded on the usage row when one package or grant paid
-- all the prepaid units, else with a `lot_moves` row per lot; a refused call writes nothing.
-- The user's row is locked before the lots are read and every writer that takes units out of a
-- lot holds that lock, so the lots are read without locks of their own. The prepaid columns are
-- null for a flat-priced tool; `o_prepaid_draws` says where the units came from, in draw order, as
-- `source:units` pairs joined by commas (for the metrics).
CREATE OR REPLACE FUNCTION "charge_call"(
  "p_user_id" bigint, "p_key_id" bigint, "p_tool_id" text, "p_units" bigint, "p_amount" bigint,
  "p_request_id" text, "p_created_at" timestamptz, "p_http_status" int, "p_latency" int,
  "p_completed_at" timestamptz, "p_price" bigint DEFAULT NULL, "p_free_units" bigint DEFAULT 0,
  "p_free_from" timestamptz DEFAULT NULL, "p_free_until" timestamptz DEFAULT NULL, "p_stop" boolean DEFAULT false
) RETURNS TABLE ("o_outcome" text, "o_usage_id" bigint, "o_balance_after" bigint, "o_prepaid_units" bigint, "o_prepaid_left" bigint, "o_prepaid_draws" text)
LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $$
DECLARE
  "amount" bigint;
  "balance" bigint;
  "usage_id" bigint;
  "counted_period" timestamptz;
  "lot" record;
  "need" bigint := "p_units";
  "take" bigint;
  "left_before" bigint;
  -- The lots drawn from and what each gave, in draw order (null: none).
  "lot_ids" bigint[];
  "takes" bigint[];
  "draws" text;
  -- The lot recorded on the usage row: a package or grant that paid all the prepaid units (null: lot_moves rows record the draws).
  "row_lot" bigint;
BEGIN
  IF "p_price" IS NOT NULL THEN
    SELECT u.balance INTO "balance" FROM users u WHERE u.id = "p_user_id" FOR UPDATE;
    IF "p_free_units" > 0 THEN
      INSERT INTO unit_lots (user_id, tool_id, source, label, units_granted, units_left, effective_at, expires_at, created_at, origin)
        VALUES ("p_user_id", "p_tool_id", 'free', 'free', "p_free_units", "p_free_units", "p_free_from", "p_free_until", "p_created_at",
                'free:' || to_char("p_free_from" AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'))
        ON CONFLICT (user_id, tool_id, origin) DO NOTHING;
    END IF;
    "left_before" := 0;
    "draws" := '';
    FOR "lot" IN
      SELECT l.id, l.units_left, l.source FROM unit_lots l
       WHERE l.user_id = "p_user_id" AND l.tool_id = "p_tool_id" AND l.units_left > 0
         AND l.effective_at <= "p_created_at" AND l.expires_at > "p_created_at" AND l.refunded_at IS NULL
       ORDER BY (l.source = 'free') DESC, l.expires_at, l.id
    LOOP
      "left_before" := "left_before" + "lot".units_left;
      IF "need" > 0 THEN
        "take" := least("lot".units_left, "need");
        "need" := "need" - "take";
        "lot_ids" := "lot_ids" || "lot".id;
        "takes" := "takes" || "take";
        "draws" := concat_ws(',', nullif("draws", ''), "lot".source || ':' || "take");
        "row_lot" := CASE WHEN cardinality("lot_ids") = 1 AND "lot".source <> 'free' THEN "lot".id END;
      END IF;
    END LOOP;
    IF "need" > 0 AND "p_stop" THEN
      RETURN QUERY SELECT 'prepaid_exhausted'::text, NULL::bigint, NULL::bigint, NULL::bigint, "left_before", NULL::text;
      RETURN;
    END IF;
    "amount" := "need" * "p_price";
  ELSE
    "amount" := "p_amount";
  END IF;

  -- No row leaves the balance null: a missing user, or a balance that does not cover the call.
  IF "amount" > 0 THEN
    UPDATE users SET balance = users.balance - "amount"
      WHERE users.id = "p_user_id" AND users.balance >= "amount"
      RETURNING users.balance INTO "balance";
  ELSIF "p_price" IS NULL THEN
    SELECT u.balance INTO "balance" FROM users u WHERE u.id = "p_user_id";
  END IF;
  IF "balance" IS NULL THEN
    IF NOT EXISTS (SELECT FROM users WHERE id = "p_user_id") OR NOT EXISTS (SELECT FROM api_keys WHERE id = "p_key_id") THEN
      RAISE EXCEPTION 'charge for a missing user or key (%)', "p_request_id";
    END IF;
    RETURN QUERY SELECT 'insufficient_balance'::text, NULL::bigint, NULL::bigint, NULL::bigint, "left_before", NULL::text;
    RETURN;
  END IF;

  -- A call in a later day or month than the key's counted period starts a new one at 0; the limit
  -- counts the period's spend, or the lifetime's.
  UPDATE api_keys k SET
      spent = k.spent + "amount",
      last_used_at = greatest(k.last_used_at, "p_created_at"),
      period_start = CASE WHEN k.spend_limit_period <> 'lifetime'
                           AND (k.period_start IS NULL OR spend_period_start(k.spend_limit_period, "p_created_at") > k.period_start)
                          THEN spend_period_start(k.spend_limit_period, "p_created_at") ELSE k.period_start END,
      period_spent = CASE WHEN k.spend_limit_period <> 'lifetime'
                           AND (k.period_start IS NULL OR spend_period_start(k.spend_limit_period, "p_created_at") > k.period_start)
                          THEN 0 ELSE k.period_spent END + "amount"
    WHERE k.id = "p_key_id"
      AND (k.spend_limit IS NULL
           OR "amount" + CASE WHEN k.spend_limit_period = 'lifetime' THEN k.spent
                              WHEN k.period_start IS NULL OR spend_period_start(k.spend_limit_period, "p_created_at") > k.period_start THEN 0
                              ELSE k.period_spent END <= k.spend_limit)
    RETURNING CASE WHEN k.spend_limit_period <> 'lifetime' THEN k.period_start END INTO "counted_period";
  IF NOT FOUND THEN
    IF NOT EXISTS (SELECT FROM api_keys WHERE id = "p_key_id") THEN
      RAISE EXCEPTION 'charge for a missing user or key (%)', "p_request_id";
    END IF;
    IF "amount" > 0 THEN
      UPDATE users SET balance = users.balance + "amount" WHERE users.id = "p_user_id";
    END IF;
    RETURN QUERY SELECT 'spend_limit_reached'::text, NULL::bigint, NULL::bigint, NULL::bigint, "left_before", NULL::text;
    RETURN;
  END IF;

  IF "amount" > 0 THEN
    INSERT INTO ledger_entries (user_id, amount, balance_after, kind, method, reference, idempotency_key, created_at)
      VALUES ("p_user_id", -"amount", "balance", 'charge', "p_tool_id", "p_request_id", 'usage:' || "p_request_id", "p_created_at");
  END IF;
  INSERT INTO usage_records (user_id, api_key_id, tool_id, units, amount, status, request_id, created_at, http_status, latency_ms, completed_at,
                             spend_period_start, prepaid_units, drawn_lot_id, drawn_lot_units)
    VALUES ("p_user_id", "p_key_id", "p_tool_id", "p_units", "amount",
            CASE WHEN "p_http_status" IS NULL THEN 'pending' ELSE 'succeeded' END::usage_status,
            "p_request_id", "p_created_at", "p_http_status", "p_latency", "p_completed_at",
            "counted_period", "p_units" - "need", "row_lot", CASE WHEN "row_lot" IS NOT NULL THEN "takes"[1] ELSE 0 END)
    RETURNING id INTO "usage_id";
  -- A lot at a time, by its id: cheaper than a join with the arrays for the one lot most calls draw.
  FOR k IN 1..coalesce(cardinality("lot_ids"), 0) LOOP
    UPDATE unit_lots SET units_left = units_left - "takes"[k] WHERE id = "lot_ids"[k];
    IF "row_lot" IS NULL THEN
      INSERT INTO lot_moves (lot_id, usage_id, units, kind, created_at) VALUES ("lot_ids"[k], "usage_id", "takes"[k], 'draw', "p_created_at");
    END IF;
  END LOOP;
  RETURN QUERY SELECT 'ok'::text, "usage_id", "balance",
                      CASE WHEN "p_price" IS NOT NULL THEN "p_units" - "need" END, "left_before" - ("p_units" - "need"), "draws";
END;
$$;
--> statement-breakpoint
DROP FUNCTION "charge_calls"(bigint[], bigint[], text[], bigint[], bigint[], text[], timestamptz[], int[], int[], timestamptz[], bigint[]);
--> statement-breakpoint
-- Charges a batch of calls in one statement (docs/decisions/012): locks the users, then the keys,
-- in id order, admits each call in arrival order while the locked balance covers it and its key's
-- spend limit allows it, then writes balances, ledger entries, key spend and usage rows at once.
-- A refused call writes nothing. src/server/modules/ledger/charges.ts calls it for two calls or more.
-- `p_prepaid_units`: the units charge_calls_prepaid drew from lots for each call, written with its
-- usage row; `p_drawn_lot_ids` and `p_drawn_lot_units`: the one package or grant that paid them, if one did.
CREATE OR REPLACE FUNCTION "charge_calls"(
  "p_user_ids" bigint[], "p_key_ids" bigint[], "p_tool_ids" text[], "p_units" bigint[], "p_amounts" bigint[],
  "p_request_ids" text[], "p_created_ats" timestamptz[], "p_http_statuses" int[], "p_latencies" int[],
  "p_completed_ats" timestamptz[], "p_prepaid_units" bigint[] DEFAULT NULL, "p_drawn_lot_ids" bigint[] DEFAULT NULL,
  "p_drawn_lot_units" bigint[] DEFAULT NULL
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
                                    spend_period_start, prepaid_units, drawn_lot_id, drawn_lot_units)
         SELECT "p_user_ids"[i], "p_key_ids"[i], "p_tool_ids"[i], "p_units"[i], "p_amounts"[i],
                CASE WHEN "p_http_statuses"[i] IS NULL THEN 'pending' ELSE 'succeeded' END::usage_status,
                "p_request_ids"[i], "p_created_ats"[i], "p_http_statuses"[i], "p_latencies"[i], "p_completed_ats"[i],
                "counted_periods"[i], coalesce("p_prepaid_units"[i], 0), "p_drawn_lot_ids"[i], coalesce("p_drawn_lot_units"[i], 0)
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
-- Charges a batch of calls of tools with free quotas or packages in one statement: the batch form
-- of charge_call's draws (docs/decisions/054), as charge_calls is of its flat charge. Locks the users in
-- id order, makes the free quotas' lots the batch needs, and locks the lots the batch may draw.
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
  INSERT INTO unit_lots (user_id, tool_id, source, label, units_granted, units_left, effective_at, expires_at, created_at, origin)
    SELECT DISTINCT ON (f.user_id, f.tool_id, f.free_from) f.user_id, f.tool_id, 'free', 'free', f.free_units, f.free_units, f.free_from, f.free_until, f.created_at,
           'free:' || to_char(f.free_from AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')
      FROM unnest("p_user_ids", "p_tool_ids", "p_free_units", "p_free_froms", "p_free_untils", "p_created_ats") AS f(user_id, tool_id, free_units, free_from, free_until, created_at)
     WHERE f.free_units > 0
     ORDER BY f.user_id, f.tool_id, f.free_from, f.created_at
    ON CONFLICT (user_id, tool_id, origin) DO NOTHING;
  SELECT min(a), max(a) INTO "first_at", "last_at" FROM unnest("p_created_ats") AS a;

  -- The lots any call of the batch could draw, locked, in draw order; `lots_throughout`: every one usable at every call's time.
  SELECT coalesce(array_agg(l.id ORDER BY l.o), '{}'), coalesce(array_agg(l.user_id ORDER BY l.o), '{}'), coalesce(array_agg(l.tool_id ORDER BY l.o), '{}'),
         coalesce(array_agg(l.source::text ORDER BY l.o), '{}'), coalesce(array_agg(l.units_left ORDER BY l.o), '{}'),
         coalesce(bool_and(l.effective_at <= "first_at" AND l.expires_at > "last_at"), true)
    INTO "lot_ids", "lot_users", "lot_tools", "lot_sources", "lot_lefts", "lots_throughout"
    FROM (SELECT l.id, l.user_id, l.tool_id, l.source, l.units_left, l.effective_at, l.expires_at,
                 row_number() OVER (ORDER BY l.user_id, l.tool_id, (l.source = 'free') DESC, l.expires_at, l.id) AS o
            FROM (SELECT l.* FROM unit_lots l
                   WHERE (l.user_id, l.tool_id) IN (SELECT DISTINCT u, t FROM unnest("p_user_ids", "p_tool_ids") AS c(u, t))
                     AND l.units_left > 0 AND l.refunded_at IS NULL AND l.effective_at <= "last_at" AND l.expires_at > "first_at"
                   ORDER BY l.id FOR UPDATE) AS l) AS l;
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
--> statement-breakpoint
-- Gives back to their lots the prepaid units a call no longer needs, whichever writer settles it
-- (settle_call, a batch refund, the abandoned-call sweep, an operator's refund): all of them when
-- the call is refunded, those beyond its final units when it used fewer than it held. A call's draws
-- are its usage row's lot (`drawn_lot_id`) or its `lot_moves` rows, net of what it gave back. Units go
-- back to the lots last drawn first, so what a call used is what it drew first; a lot that has
-- expired meanwhile takes them back and they expire with it. Runs as the BEFORE UPDATE trigger
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
      FROM (SELECT OLD.drawn_lot_id AS lot_id, OLD.drawn_lot_units AS units, 0::bigint AS id WHERE OLD.drawn_lot_id IS NOT NULL
            UNION ALL
            SELECT m.lot_id, m.units, m.id FROM lot_moves m WHERE m.usage_id = OLD.id) AS m
     GROUP BY m.lot_id HAVING sum(m.units) > 0 ORDER BY min(m.id) DESC
  LOOP
    EXIT WHEN "give" = 0;
    "back" := least("drawn".net, "give");
    UPDATE unit_lots SET units_left = unit_lots.units_left + "back" WHERE unit_lots.id = "drawn".lot_id;
    INSERT INTO lot_moves (lot_id, usage_id, units, kind, created_at)
      VALUES ("drawn".lot_id, OLD.id, -"back", 'return', coalesce(NEW.completed_at, now()));
    "give" := "give" - "back";
  END LOOP;
  IF "give" <> 0 THEN
    RAISE EXCEPTION 'call % has fewer prepaid units drawn than it records', OLD.request_id;
  END IF;
  NEW.prepaid_units := "keep";
  RETURN NEW;
END;
$$;
