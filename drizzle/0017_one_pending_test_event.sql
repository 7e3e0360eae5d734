-- A user's webhook test event is sent once, and a user has at most one on its way: the console's
-- "send a test event" queued a delivery on every click, each retried for hours against a receiver
-- that fails, so one account could flood any https address and fill the queue every user's
-- low-balance alerts wait in. Test events already pending when this runs are given up.
UPDATE "alert_deliveries" SET "status" = 'failed', "last_error" = 'given up: test events are sent once'
  WHERE "event_type" = 'test' AND "status" = 'pending';
--> statement-breakpoint
CREATE UNIQUE INDEX "alert_deliveries_one_pending_test_idx" ON "alert_deliveries" ("user_id")
  WHERE "event_type" = 'test' AND "status" = 'pending';
