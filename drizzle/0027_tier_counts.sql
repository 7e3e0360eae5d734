CREATE TABLE "tier_counts" (
	"user_id" bigint NOT NULL,
	"tool_id" text NOT NULL,
	"month_start" timestamp with time zone NOT NULL,
	"units" bigint NOT NULL,
	CONSTRAINT "tier_counts_user_id_tool_id_month_start_pk" PRIMARY KEY("user_id","tool_id","month_start")
);
