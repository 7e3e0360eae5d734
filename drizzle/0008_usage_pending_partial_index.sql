DROP INDEX "usage_records_pending_idx";--> statement-breakpoint
CREATE INDEX "usage_records_pending_idx" ON "usage_records" USING btree ("created_at") WHERE "usage_records"."status" = 'pending';