-- What an OpenAI-compatible tool's call was charged for (issue 36): model, tokens read and written,
-- the amount of each, and whether the upstream reported the tokens or Tollgate counted them.
CREATE TYPE "public"."token_origin" AS ENUM('reported', 'counted');--> statement-breakpoint
CREATE TABLE "llm_usage" (
	"usage_id" bigint PRIMARY KEY NOT NULL,
	"model" text NOT NULL,
	"input_tokens" integer NOT NULL,
	"cached_input_tokens" integer NOT NULL,
	"output_tokens" integer NOT NULL,
	"input_amount" bigint NOT NULL,
	"cached_input_amount" bigint NOT NULL,
	"output_amount" bigint NOT NULL,
	"origin" "token_origin" NOT NULL
);
