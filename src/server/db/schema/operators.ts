import { bigserial, index, integer, jsonb, pgTable, text, timestamp } from "drizzle-orm/pg-core";

/** One row per `tollgate admin` command run: who ran what, when, from which host user, and how it ended. */
export const operatorAudit = pgTable(
  "operator_audit",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    at: timestamp("at", { withTimezone: true }).notNull(),
    /** The operating-system account and host the command ran as. */
    hostUser: text("host_user").notNull(),
    host: text("host").notNull(),
    /** The command's name, e.g. "users disable". */
    command: text("command").notNull(),
    /** The words after `admin`, as typed. */
    argv: jsonb("argv").$type<string[]>().notNull(),
    exitCode: integer("exit_code").notNull(),
  },
  (t) => [index("operator_audit_at_idx").on(t.at)],
);
