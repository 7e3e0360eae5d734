CREATE TABLE "redemption_failures" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"user_id" bigint NOT NULL,
	"ip" text NOT NULL,
	"reason" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "redemption_failures" ADD CONSTRAINT "redemption_failures_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "redemption_failures_user_idx" ON "redemption_failures" USING btree ("user_id","created_at");--> statement-breakpoint
CREATE INDEX "redemption_failures_ip_idx" ON "redemption_failures" USING btree ("ip","created_at");