ALTER TABLE "auth_verification_codes" ADD COLUMN "client" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "auth_verification_codes" ALTER COLUMN "client" DROP DEFAULT;--> statement-breakpoint
ALTER TABLE "auth_verification_codes" DROP CONSTRAINT "auth_verification_codes_target_purpose_pk";--> statement-breakpoint
ALTER TABLE "auth_verification_codes" ADD CONSTRAINT "auth_verification_codes_target_purpose_client_pk" PRIMARY KEY("target","purpose","client");--> statement-breakpoint
CREATE TABLE "auth_known_clients" (
	"target" text NOT NULL,
	"client" text NOT NULL,
	"last_login_at" timestamp with time zone NOT NULL,
	CONSTRAINT "auth_known_clients_target_client_pk" PRIMARY KEY("target","client")
);--> statement-breakpoint
CREATE INDEX "auth_known_clients_last_login_idx" ON "auth_known_clients" USING btree ("last_login_at");
