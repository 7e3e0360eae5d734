DROP INDEX "unit_lots_drawable_idx";--> statement-breakpoint
DROP INDEX "unit_lots_expiring_idx";--> statement-breakpoint
CREATE INDEX "unit_lots_expiring_idx" ON "unit_lots" USING btree ("expires_at");