-- A refund has its own time, refunded_at: an operator's refund of a call that had ended wrote its time over completed_at, so `calls show` said the call ended when it was refunded. Calls refunded before this change get their completed_at, which a refund always wrote (the refund's time).
ALTER TABLE "usage_records" ADD COLUMN "refunded_at" timestamp with time zone;--> statement-breakpoint
UPDATE "usage_records" SET "refunded_at" = "completed_at" WHERE "status" = 'refunded';
