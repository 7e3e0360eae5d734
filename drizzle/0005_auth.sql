CREATE TABLE "auth_captcha_uses" (
	"id" text PRIMARY KEY NOT NULL,
	"used_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "auth_events" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"at" timestamp with time zone NOT NULL,
	"type" text NOT NULL,
	"reason" text,
	"phone_masked" text,
	"user_id" bigint,
	"ip" text,
	"user_agent" text,
	"request_id" text
);
--> statement-breakpoint
CREATE TABLE "auth_rate_events" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"key" text NOT NULL,
	"subject" text,
	"at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "auth_verification_codes" (
	"target" text NOT NULL,
	"purpose" text NOT NULL,
	"code_hmac" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"consumed_at" timestamp with time zone,
	CONSTRAINT "auth_verification_codes_target_purpose_pk" PRIMARY KEY("target","purpose")
);
--> statement-breakpoint
CREATE INDEX "auth_captcha_uses_expires_idx" ON "auth_captcha_uses" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "auth_events_at_idx" ON "auth_events" USING btree ("at");--> statement-breakpoint
CREATE INDEX "auth_events_user_idx" ON "auth_events" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "auth_rate_events_key_idx" ON "auth_rate_events" USING btree ("name","key","at");--> statement-breakpoint
CREATE INDEX "auth_rate_events_at_idx" ON "auth_rate_events" USING btree ("name","at");