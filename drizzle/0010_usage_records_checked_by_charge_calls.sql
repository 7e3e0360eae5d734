ALTER TABLE "usage_records" DROP CONSTRAINT "usage_records_user_id_users_id_fk";
--> statement-breakpoint
ALTER TABLE "usage_records" DROP CONSTRAINT "usage_records_api_key_id_api_keys_id_fk";
--> statement-breakpoint
-- Billing history refers to users and API keys by id without foreign keys (charge_calls checks
-- both under its lock), so neither is ever deleted: keys are marked deleted instead.
CREATE FUNCTION "refuse_delete"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION '% rows are never deleted: billing history refers to them', TG_TABLE_NAME;
END;
$$;
--> statement-breakpoint
CREATE TRIGGER "users_never_deleted" BEFORE DELETE ON "users" FOR EACH ROW EXECUTE FUNCTION "refuse_delete"();
--> statement-breakpoint
CREATE TRIGGER "api_keys_never_deleted" BEFORE DELETE ON "api_keys" FOR EACH ROW EXECUTE FUNCTION "refuse_delete"();
