import { z } from "zod";
import { CALL_OUTCOMES, STATUS_CLASSES } from "./call-outcomes";
import { normalRequestId, REQUEST_ID_MAX_LENGTH, REQUEST_ID_TOO_LONG } from "./request-ids";
import { userText } from "./text";

export { CALL_LOG_OUTCOMES, CALL_OUTCOME_MEANINGS, CALL_OUTCOMES, STATUS_CLASSES, type CallOutcome } from "./call-outcomes";

export const CALLS_PAGE_MAX = 100;

/** GET /api/v1/console/calls and calls.csv: every call of the user's keys, whatever its outcome. */
export const callsQuerySchema = z.strictObject({
  from: z.iso.datetime({ offset: true }).optional().describe("Start of the range, inclusive"),
  to: z.iso.datetime({ offset: true }).optional().describe("End of the range, exclusive"),
  toolId: userText().max(64).optional(),
  keyId: z.coerce.number().int().positive().optional(),
  outcome: z.enum(CALL_OUTCOMES).optional().describe("One outcome code (see the error tables)"),
  status: z.enum(STATUS_CLASSES).optional().describe("The class of the HTTP status the caller got"),
  charged: z.enum(["true", "false"]).optional().describe("true: calls that cost something; false: calls that cost nothing"),
  slowerThanMs: z.coerce.number().int().min(0).max(86_400_000).optional().describe("Only calls that took longer than this, in milliseconds"),
  cursor: userText().max(200).optional().describe("nextCursor of the previous page"),
  limit: z.coerce.number().int().min(1).max(CALLS_PAGE_MAX).default(20),
});
export type CallsQuery = z.input<typeof callsQuerySchema>;

export const callRowSchema = z.object({
  requestId: z.string(),
  time: z.string().describe("When the request was received"),
  toolId: z.string(),
  keyId: z.number().int(),
  keyName: z.string(),
  outcome: z.enum(CALL_OUTCOMES),
  httpStatus: z.number().int().describe("The status the caller got"),
  upstreamStatus: z.number().int().nullable().describe("The status the tool answered with; null when it never answered"),
  amount: z.string().describe("What the call cost, a decimal string"),
  notChargedReason: z.string().nullable().describe("Why the call cost nothing; null when it cost something"),
  units: z.number().int().describe("Units the call used, whatever paid for them"),
  prepaidUnits: z.number().int().describe("Of those units, the ones the caller's free quotas and packages paid"),
  streamed: z.boolean(),
  fromConsole: z.boolean().describe("Made from the console's Try it rather than by an outside caller"),
  bytesIn: z.number().int(),
  bytesOut: z.number().int(),
  clientNetwork: z.string().describe("The caller's address as its /24 (IPv4) or /48 (IPv6)"),
  totalMs: z.number().describe("From receiving the request to its end"),
  upstreamMs: z.number().nullable().describe("The tool's share of totalMs"),
  ownMs: z.number().describe("The gateway's own share: totalMs less upstreamMs"),
});
export type CallRow = z.infer<typeof callRowSchema>;

export const callsPageSchema = z.object({
  items: z.array(callRowSchema),
  nextCursor: z.string().nullable(),
  retentionDays: z.number().int().describe("How many days calls are kept"),
});
export type CallsPage = z.infer<typeof callsPageSchema>;

export const CALL_STEPS = ["received", "key_checked", "held", "first_byte", "ended"] as const;

export const callDetailSchema = callRowSchema.extend({
  timeline: z.array(z.object({ step: z.enum(CALL_STEPS), atMs: z.number() })).describe("Each step's time from receiving the request"),
  held: z.string().describe("Held before the tool ran (a built-in tool: charged after it ran)"),
  refunded: z.string().describe("What of the hold was given back"),
  operatorRefund: z
    .object({ amount: z.string(), time: z.string(), reference: z.string().describe("The operator's reason, and the call") })
    .nullable()
    .describe("The site operator's refund of the call after it ended: what it gave back to the balance, when and why; null when there was none"),
  error: z.object({ code: z.string(), message: z.string() }).nullable().describe("The error the caller got; null when the tool's answer was passed on"),
});
export type CallDetail = z.infer<typeof callDetailSchema>;

export const requestIdParams = z.object({ requestId: userText().min(1).max(REQUEST_ID_MAX_LENGTH, REQUEST_ID_TOO_LONG).transform(normalRequestId) });

export const CALLS_CSV_HEADER = [
  "time",
  "request_id",
  "tool",
  "key",
  "outcome",
  "http_status",
  "upstream_status",
  "amount",
  "not_charged_reason",
  "units",
  "prepaid_units",
  "streamed",
  "bytes_in",
  "bytes_out",
  "client_network",
  "total_ms",
  "upstream_ms",
  "own_ms",
] as const;
