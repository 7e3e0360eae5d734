CREATE TABLE "call_log" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"request_id" text NOT NULL,
	"received_at" timestamp with time zone NOT NULL,
	"user_id" bigint NOT NULL,
	"api_key_id" bigint NOT NULL,
	"tool_id" text NOT NULL,
	"outcome" text NOT NULL,
	"http_status" integer NOT NULL,
	"upstream_status" integer,
	"held" bigint NOT NULL,
	"amount" bigint NOT NULL,
	"units" bigint NOT NULL,
	"streamed" boolean NOT NULL,
	"bytes_in" bigint NOT NULL,
	"bytes_out" bigint NOT NULL,
	"client_ip" text NOT NULL,
	"total_us" integer NOT NULL,
	"upstream_us" integer,
	"key_checked_us" integer,
	"held_us" integer,
	"first_byte_us" integer,
	"error_code" text,
	"error_message" text,
	"upstream_error_excerpt" text,
	CONSTRAINT "call_log_request_id_unique" UNIQUE("request_id")
);
--> statement-breakpoint
CREATE TABLE "call_log_daily" (
	"day" date NOT NULL,
	"user_id" bigint NOT NULL,
	"tool_id" text NOT NULL,
	"calls" bigint NOT NULL,
	"failed" bigint NOT NULL,
	"amount" bigint NOT NULL,
	"units" bigint NOT NULL,
	"total_us" bigint NOT NULL,
	CONSTRAINT "call_log_daily_day_user_id_tool_id_pk" PRIMARY KEY("day","user_id","tool_id")
);
--> statement-breakpoint
CREATE INDEX "call_log_user_received_idx" ON "call_log" USING btree ("user_id","received_at","id");--> statement-breakpoint
CREATE INDEX "call_log_received_idx" ON "call_log" USING btree ("received_at","id");