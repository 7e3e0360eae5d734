CREATE TYPE "public"."when_prepaid_runs_out" AS ENUM('balance', 'stop');--> statement-breakpoint
CREATE TYPE "public"."lot_move_kind" AS ENUM('draw', 'return', 'refund');--> statement-breakpoint
CREATE TYPE "public"."lot_source" AS ENUM('free', 'package', 'grant');--> statement-breakpoint
CREATE TABLE "lot_moves" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"lot_id" bigint NOT NULL,
	"usage_id" bigint,
	"units" bigint NOT NULL,
	"kind" "lot_move_kind" NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "lot_moves_units_nonzero" CHECK ("lot_moves"."units" <> 0)
);
--> statement-breakpoint
CREATE TABLE "unit_lots" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"user_id" bigint NOT NULL,
	"tool_id" text NOT NULL,
	"source" "lot_source" NOT NULL,
	"package_id" text,
	"label" text NOT NULL,
	"units_granted" bigint NOT NULL,
	"units_left" bigint NOT NULL,
	"price_paid" bigint DEFAULT 0 NOT NULL,
	"effective_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"origin" text NOT NULL,
	"refunded_at" timestamp with time zone,
	CONSTRAINT "unit_lots_units_left_in_range" CHECK ("unit_lots"."units_left" >= 0 and "unit_lots"."units_left" <= "unit_lots"."units_granted"),
	CONSTRAINT "unit_lots_units_granted_positive" CHECK ("unit_lots"."units_granted" > 0)
);
--> statement-breakpoint
ALTER TABLE "usage_records" ADD COLUMN "prepaid_units" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "when_prepaid_runs_out" "when_prepaid_runs_out" DEFAULT 'balance' NOT NULL;--> statement-breakpoint
CREATE INDEX "lot_moves_usage_idx" ON "lot_moves" USING btree ("usage_id") WHERE "lot_moves"."usage_id" is not null;--> statement-breakpoint
CREATE INDEX "lot_moves_lot_idx" ON "lot_moves" USING btree ("lot_id");--> statement-breakpoint
CREATE UNIQUE INDEX "unit_lots_user_origin_uq" ON "unit_lots" USING btree ("user_id","tool_id","origin");--> statement-breakpoint
CREATE INDEX "unit_lots_drawable_idx" ON "unit_lots" USING btree ("user_id","tool_id","expires_at") WHERE "unit_lots"."units_left" > 0;--> statement-breakpoint
CREATE INDEX "unit_lots_expiring_idx" ON "unit_lots" USING btree ("expires_at") WHERE "unit_lots"."units_left" > 0;