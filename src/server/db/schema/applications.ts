import { sql } from "drizzle-orm";
import { bigint, bigserial, index, pgEnum, pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { APPLICATION_STATUSES } from "#shared/applications";
import { users } from "./core";

export const applicationStatus = pgEnum("application_status", APPLICATION_STATUSES);

/** A user's request for access to a tool that needs approval; an approval also writes `tool_grants`. */
export const toolApplications = pgTable(
  "tool_applications",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    userId: bigint("user_id", { mode: "number" })
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    toolId: text("tool_id").notNull(),
    companyOrProject: text("company_or_project").notNull(),
    useCase: text("use_case").notNull(),
    expectedMonthlyCalls: bigint("expected_monthly_calls", { mode: "number" }).notNull(),
    contact: text("contact").notNull(),
    status: applicationStatus("status").notNull().default("pending"),
    reviewerNote: text("reviewer_note"),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull(),
    reviewedAt: timestamp("reviewed_at", { withTimezone: true }),
  },
  (t) => [
    uniqueIndex("tool_applications_one_pending_idx").on(t.userId, t.toolId).where(sql`${t.status} = 'pending'`),
    index("tool_applications_user_idx").on(t.userId, t.createdAt),
    index("tool_applications_status_idx").on(t.status, t.createdAt),
  ],
);
