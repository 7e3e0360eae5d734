CREATE TYPE "public"."usage_status" AS ENUM('pending', 'succeeded', 'refunded');--> statement-breakpoint
CREATE TABLE "tool_grants" (
	"user_id" bigint NOT NULL,
	"tool_id" text NOT NULL,
	"granted_at" timestamp with time zone NOT NULL,
	CONSTRAINT "tool_grants_user_id_tool_id_pk" PRIMARY KEY("user_id","tool_id")
);
--> statement-breakpoint
CREATE TABLE "usage_records" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"user_id" bigint NOT NULL,
	"api_key_id" bigint NOT NULL,
	"tool_id" text NOT NULL,
	"units" bigint NOT NULL,
	"amount" bigint NOT NULL,
	"status" "usage_status" DEFAULT 'pending' NOT NULL,
	"http_status" integer,
	"latency_ms" integer,
	"request_id" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"completed_at" timestamp with time zone,
	CONSTRAINT "usage_records_request_id_unique" UNIQUE("request_id")
);
--> statement-breakpoint
ALTER TABLE "tool_grants" ADD CONSTRAINT "tool_grants_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "usage_records" ADD CONSTRAINT "usage_records_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "usage_records" ADD CONSTRAINT "usage_records_api_key_id_api_keys_id_fk" FOREIGN KEY ("api_key_id") REFERENCES "public"."api_keys"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "usage_records_user_created_idx" ON "usage_records" USING btree ("user_id","created_at","id");--> statement-breakpoint
CREATE INDEX "usage_records_pending_idx" ON "usage_records" USING btree ("status","created_at");