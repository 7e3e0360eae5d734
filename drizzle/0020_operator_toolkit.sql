-- The operator's toolkit (issue 39): a user an operator disabled cannot sign in or call the
-- gateway, a redemption code an operator voided cannot be redeemed, and every `tollgate admin`
-- command is recorded.
ALTER TABLE "redemption_codes" ADD COLUMN "voided_at" timestamp with time zone;
--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "disabled_at" timestamp with time zone;
--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "disabled_reason" text;
--> statement-breakpoint
CREATE TABLE "operator_audit" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"at" timestamp with time zone NOT NULL,
	"host_user" text NOT NULL,
	"host" text NOT NULL,
	"command" text NOT NULL,
	"argv" jsonb NOT NULL,
	"exit_code" integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX "operator_audit_at_idx" ON "operator_audit" USING btree ("at");
--> statement-breakpoint
CREATE FUNCTION "operator_audit_append_only"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'operator_audit is append-only';
END;
$$;
--> statement-breakpoint
CREATE TRIGGER "operator_audit_no_update_or_delete" BEFORE UPDATE OR DELETE ON "operator_audit" FOR EACH ROW EXECUTE FUNCTION "operator_audit_append_only"();
