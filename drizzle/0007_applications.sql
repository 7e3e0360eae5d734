CREATE TYPE "public"."application_status" AS ENUM('pending', 'approved', 'rejected');--> statement-breakpoint
CREATE TABLE "tool_applications" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"user_id" bigint NOT NULL,
	"tool_id" text NOT NULL,
	"company_or_project" text NOT NULL,
	"use_case" text NOT NULL,
	"expected_monthly_calls" bigint NOT NULL,
	"contact" text NOT NULL,
	"status" "application_status" DEFAULT 'pending' NOT NULL,
	"reviewer_note" text,
	"created_at" timestamp with time zone NOT NULL,
	"reviewed_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "tool_applications" ADD CONSTRAINT "tool_applications_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "tool_applications_one_pending_idx" ON "tool_applications" USING btree ("user_id","tool_id") WHERE "tool_applications"."status" = 'pending';--> statement-breakpoint
CREATE INDEX "tool_applications_user_idx" ON "tool_applications" USING btree ("user_id","created_at");--> statement-breakpoint
CREATE INDEX "tool_applications_status_idx" ON "tool_applications" USING btree ("status","created_at");