import { APPLICATION_STATUSES, REVIEWER_NOTE_MAX, type ApplicationStatus } from "#shared/applications";
import { escapeUnprintable } from "#shared/text";
import { maskPhone } from "#shared/user";
import { UsageError, type CliCommand, type CliContext } from "../../lib/cli/command";
import { oneId, storedText } from "../../lib/cli/args";
import { printRecords, timeCell } from "../../lib/cli/records";
import { applicationsForReview, reviewApplication, ReviewError, type ApplicationWithPhone } from "./service";

const STATUS_CHOICES = [...APPLICATION_STATUSES, "all"] as const;
const text = (value: string | null) => (value ? escapeUnprintable(value) : "-");

function printApplications(ctx: CliContext, rows: ApplicationWithPhone[], json: boolean) {
  printRecords(ctx, rows, {
    json,
    toJson: (a) => ({
      id: a.id,
      appliedAt: a.createdAt.toISOString(),
      phone: maskPhone(a.phone),
      tool: a.toolId,
      project: a.companyOrProject,
      expectedMonthlyCalls: a.expectedMonthlyCalls,
      contact: a.contact,
      useCase: a.useCase,
      status: a.status,
      reviewedAt: a.reviewedAt?.toISOString() ?? null,
      reviewerNote: a.reviewerNote,
    }),
    columns: [
      { header: "ID", value: (a) => String(a.id) },
      { header: "APPLIED", value: (a) => timeCell(a.createdAt) },
      { header: "PHONE", value: (a) => maskPhone(a.phone) },
      { header: "TOOL", value: (a) => text(a.toolId) },
      { header: "PROJECT", value: (a) => text(a.companyOrProject) },
      { header: "CALLS/MONTH", value: (a) => String(a.expectedMonthlyCalls) },
      { header: "CONTACT", value: (a) => text(a.contact) },
      { header: "STATUS", value: (a) => a.status },
      { header: "REVIEWED", value: (a) => timeCell(a.reviewedAt) },
      { header: "NOTE", value: (a) => text(a.reviewerNote) },
      { header: "USE CASE", value: (a) => escapeUnprintable(a.useCase.replace(/\n+/g, " ")) },
    ],
  });
}

export const applicationsListCommand: CliCommand = {
  name: "applications list",
  summary: "list access applications (pending ones unless --status says otherwise)",
  usage: "applications list [--status pending|approved|rejected|all] [--json]",
  examples: ["applications list", "applications list --status all --json"],
  options: { status: true, json: false },
  async run(ctx, { positionals, options }) {
    if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}"`);
    const status = (options.status ?? "pending") as ApplicationStatus | "all";
    if (!STATUS_CHOICES.includes(status)) throw new UsageError(`--status: one of ${STATUS_CHOICES.join(", ")}`);
    const rows = await applicationsForReview(ctx.db, status);
    if (rows.length === 0 && options.json !== true) {
      ctx.err(status === "all" ? "no applications" : `no ${status} applications`);
      return 0;
    }
    printApplications(ctx, rows, options.json === true);
    return 0;
  },
};

function applicationId(positionals: string[]): number {
  return oneId(positionals, "application id", "applications list shows them");
}

function note(option: string | boolean | undefined, required: boolean): string | null {
  const text = typeof option === "string" ? option.trim() : "";
  if (!text && required) throw new UsageError('--note is required: tell the applicant why, e.g. --note "please describe the volume"');
  if (text.length > REVIEWER_NOTE_MAX) throw new UsageError(`--note: at most ${REVIEWER_NOTE_MAX} characters`);
  return storedText(text, "note", { multiline: true }) || null;
}

function reviewCommand(decision: "approved" | "rejected"): CliCommand {
  const verb = decision === "approved" ? "approve" : "reject";
  return {
    name: `applications ${verb}`,
    summary:
      decision === "approved"
        ? "approve a pending application: the user may call the tool at once"
        : "reject a pending application with a note the user sees",
    usage: decision === "approved" ? "applications approve <id> [--note …]" : "applications reject <id> --note …",
    examples: decision === "approved" ? ["applications approve 17", 'applications approve 17 --note "welcome aboard"'] : ['applications reject 17 --note "we cannot offer this tool for resale"'],
    options: { note: true },
    async run(ctx, { positionals, options }) {
      const id = applicationId(positionals);
      const reviewerNote = note(options.note, decision === "rejected");
      let reviewed;
      try {
        reviewed = await reviewApplication(ctx.db, { id, decision, note: reviewerNote, now: ctx.clock.now() });
      } catch (error) {
        if (!(error instanceof ReviewError)) throw error;
        ctx.err(error.message);
        return 1;
      }
      const who = `user ${reviewed.userId} (${maskPhone(reviewed.phone)})`;
      ctx.out(
        decision === "approved"
          ? `approved application ${id}: ${who} may now call ${reviewed.toolId}`
          : `rejected application ${id} of ${who} for ${reviewed.toolId}: ${reviewerNote}`,
      );
      return 0;
    },
  };
}

export const applicationsApproveCommand = reviewCommand("approved");
export const applicationsRejectCommand = reviewCommand("rejected");
