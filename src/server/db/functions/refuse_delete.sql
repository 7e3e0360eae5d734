-- Billing history refers to users and API keys by id without foreign keys (the charge functions
-- check both under their locks), so neither is ever deleted: keys are marked deleted instead. The
-- triggers users_never_deleted and api_keys_never_deleted run it (drizzle/0010).
CREATE OR REPLACE FUNCTION "refuse_delete"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION '% rows are never deleted: billing history refers to them', TG_TABLE_NAME;
END;
$$;
