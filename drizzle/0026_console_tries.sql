CREATE TABLE "console_tries" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"user_id" bigint NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"api_key_id" bigint NOT NULL,
	"tool_id" text NOT NULL,
	"method" text NOT NULL,
	"path" text NOT NULL,
	"content_type" text,
	"request_body" text NOT NULL,
	"request_truncated" boolean NOT NULL,
	"request_id" text NOT NULL,
	"status" integer NOT NULL,
	"response_content_type" text,
	"response_body" text,
	"response_truncated" boolean NOT NULL,
	"amount" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "call_log" ADD COLUMN "from_console" boolean DEFAULT false NOT NULL;--> statement-breakpoint
CREATE INDEX "console_tries_user_idx" ON "console_tries" USING btree ("user_id","id");