-- When the spend period holding p_at began (Beijing time is UTC+8 all year); null for 'lifetime'.
-- src/shared/spend-period.ts computes the same for the console; the test "period boundaries" in
-- src/server/modules/keys/spend-periods.test.ts holds the two together.
CREATE OR REPLACE FUNCTION "spend_period_start"("p_period" "spend_limit_period", "p_at" timestamptz) RETURNS timestamptz
LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE "p_period"
    WHEN 'day' THEN (date_trunc('day', ("p_at" AT TIME ZONE 'UTC') + interval '8 hours') - interval '8 hours') AT TIME ZONE 'UTC'
    WHEN 'month' THEN (date_trunc('month', ("p_at" AT TIME ZONE 'UTC') + interval '8 hours') - interval '8 hours') AT TIME ZONE 'UTC'
  END
$$;
