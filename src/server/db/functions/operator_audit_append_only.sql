-- Every `tollgate admin` command run is kept: the trigger operator_audit_no_update_or_delete runs
-- it (drizzle/0020).
CREATE OR REPLACE FUNCTION "operator_audit_append_only"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'operator_audit is append-only';
END;
$$;
