-- Each server process holds a lease it renews every few seconds; an Idempotency-Key claim names
-- the process holding it, so a retry can tell a claim whose process died from one still running
-- (docs/decisions/046).
CREATE TABLE "instance_leases" (
	"id" text PRIMARY KEY NOT NULL,
	"started_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "idempotency_keys" ADD COLUMN "instance_id" text;
