import { and, eq, inArray, sql } from "drizzle-orm";
import { beijingDateTime } from "#shared/beijing-time";
import { formatMoney } from "#shared/money";
import type { Db } from "../../db/client";
import { requiredReason } from "../../lib/cli/args";
import { UsageError, type CliCommand, type CliContext } from "../../lib/cli/command";
import { printRecord } from "../../lib/cli/records";
import { ledgerEntries, llmUsage, operatorAudit, usageRecords } from "../../db/schema/index";
import { OPERATOR_REFUND_KEY_PREFIX, refundChargedCall, type CallLot } from "../ledger/index";
import { callLogEntry, type CallLogEntry } from "../calls/index";
import { escapeUnprintable } from "#shared/text";
import type { PaidPart } from "#shared/billing";
import { normalRequestId, REQUEST_ID_MAX_LENGTH, REQUEST_ID_TOO_LONG } from "#shared/request-ids";
import { lotPartsOf, paidBy, paidByWords } from "../billing/index";
import { loadCatalog } from "../catalog/index";
import { counted } from "../../lib/cli/counted";

/** The one request id the operator gave, as the gateway wrote it (normalRequestId). */
function oneRequestId(positionals: string[]): string {
  const [given, ...extra] = positionals;
  const requestId = normalRequestId(given ?? "");
  if (!requestId || extra.length > 0) throw new UsageError("give one request id (the x-request-id a call was answered with)");
  if (requestId.length > REQUEST_ID_MAX_LENGTH) throw new UsageError(`the request id given ${REQUEST_ID_TOO_LONG}: give the x-request-id a call was answered with`);
  return requestId;
}

const ms = (us: number | null) => (us === null ? "-" : `${us / 1000} ms`);

/**
 * Whether the gateway itself refused the call (a 4xx of its own: a key, balance, quota or limit
 * refusal), so nothing of the tool's reached the caller and nothing was charged.
 */
const refusedByGateway = (log: CallLogEntry) => log.errorCode !== null && log.httpStatus < 500;

/** Whether the catalog the server runs with has the tool as a built-in (run in the server); null when it cannot be read. */
function isBuiltin(config: CliContext["config"], toolId: string): boolean | null {
  try {
    const tool = loadCatalog(config.toolsCatalog).find((t) => t.id === toolId);
    return tool ? tool.handler.type === "builtin" : null;
  } catch {
    return null;
  }
}

/**
 * What became of the call at the tool. A refused call never reached the upstream, unless it was
 * sent before its hold committed (decision 038) or ran first as a built-in tool: then its answer
 * was dropped, and the caller got none of it.
 */
function upstreamField(log: CallLogEntry, builtin: boolean | null): string {
  if (!refusedByGateway(log)) return log.upstreamStatus === null ? "no answer" : `HTTP ${log.upstreamStatus}`;
  if (log.upstreamStatus === null) return `never reached: the gateway refused the call (${log.errorCode}) before the tool was called`;
  return builtin
    ? `none (a built-in tool): it ran before the charge, which was refused (${log.errorCode}); its answer (${log.upstreamStatus}) was dropped and the caller got none of it`
    : `HTTP ${log.upstreamStatus}, dropped: the call was sent before its hold committed, the hold was refused (${log.errorCode}), and the caller got none of the answer`;
}

/** The call log's row (kept CALL_LOG_RETENTION_DAYS): outcome, upstream status and the start of a failed upstream's body, escaped. */
function logFields(log: CallLogEntry | null, builtin: boolean | null): [string, string][] {
  if (!log) return [["log", "none (older than the call log keeps, or never written)"]];
  return [
    ["outcome", `${log.outcome} (HTTP ${log.httpStatus})`],
    ["error", log.errorCode === null ? "-" : `${log.errorCode}: ${escapeUnprintable(log.errorMessage ?? "")}`],
    ["upstream", upstreamField(log, builtin)],
    ["upstream body", log.upstreamErrorExcerpt === null ? "-" : escapeUnprintable(log.upstreamErrorExcerpt)],
    ["client", log.clientIp],
    ["took", `${ms(log.totalUs)} in all, ${ms(log.upstreamUs)} upstream`],
    ["bytes", `${log.bytesIn} in, ${log.bytesOut} out${log.streamed ? " (streamed)" : ""}`],
  ];
}

const logDocument = (log: CallLogEntry | null) =>
  log && {
    outcome: log.outcome,
    httpStatus: log.httpStatus,
    upstreamStatus: log.upstreamStatus,
    /** The gateway refused the call: whatever the tool answered (upstreamStatus) never reached the caller. */
    refused: refusedByGateway(log),
    error: log.errorCode === null ? null : { code: log.errorCode, message: log.errorMessage },
    upstreamErrorExcerpt: log.upstreamErrorExcerpt,
    clientIp: log.clientIp,
    held: formatMoney(log.held),
    amount: formatMoney(log.amount),
    totalUs: log.totalUs,
    upstreamUs: log.upstreamUs,
    bytesIn: log.bytesIn,
    bytesOut: log.bytesOut,
    streamed: log.streamed,
    receivedAt: log.receivedAt.toISOString(),
  };

export const callsShowCommand: CliCommand = {
  name: "calls show",
  summary: "one gateway call by its request id, refused, failed or served: user, key, tool, outcome, the upstream's status and the start of its error body, amount, times, an LLM call's model and tokens, and the ledger entries it moved",
  usage: "calls show <request-id> [--json]",
  examples: ["calls show 0b6f8c2e-5d1a-4c59-9a57-3e0f5f2d7c11"],
  options: { json: false },
  async run(ctx, { positionals, options }) {
    const requestId = oneRequestId(positionals);
    const [[call], log] = await Promise.all([ctx.db.select().from(usageRecords).where(eq(usageRecords.requestId, requestId)), callLogEntry(ctx.db, requestId)]);
    const who = call ?? log;
    if (!who) {
      ctx.err(noSuchCall(requestId, ctx.config.calls.retentionDays, "; calls with no valid key are not kept"));
      return 1;
    }
    // A call refused or failed before it was charged has only its call log row.
    const keys = [`usage:${requestId}`, `refund:${requestId}`, `${OPERATOR_REFUND_KEY_PREFIX}${requestId}`];
    const entries = call ? await ctx.db.select().from(ledgerEntries).where(inArray(ledgerEntries.idempotencyKey, keys)).orderBy(ledgerEntries.id) : [];
    const [tokens] = call ? await ctx.db.select().from(llmUsage).where(eq(llmUsage.usageId, call.id)) : [];
    // What paid: the lots the call drew (net of what it gave back), then the balance; as the billing details say it.
    const paid = call && call.status !== "refunded" ? paidBy((await lotPartsOf(ctx.db, [call.id])).get(call.id) ?? [], call.units - call.prepaidUnits) : null;
    const llm = tokens && {
      model: tokens.model,
      inputTokens: tokens.inputTokens,
      cachedInputTokens: tokens.cachedInputTokens,
      outputTokens: tokens.outputTokens,
      inputAmount: formatMoney(tokens.inputAmount + tokens.cachedInputAmount),
      cachedInputAmount: formatMoney(tokens.cachedInputAmount),
      outputAmount: formatMoney(tokens.outputAmount),
      origin: tokens.origin,
    };
    // An LLM call's usage row counts the micro-units it was held and charged (decision 051); what it used is its tokens, as billing
    // details say, and a call that failed used none, as its call log row says (the usage row keeps what it held).
    const units = tokens ? tokens.inputTokens + tokens.outputTokens : (log?.units ?? who.units);
    // An operator's refund leaves the usage row net of it; the call still cost what it was charged, as billing details show it.
    const operatorRefund = entries.find((e) => e.idempotencyKey === `${OPERATOR_REFUND_KEY_PREFIX}${requestId}`);
    const amount = formatMoney(call ? call.amount + (operatorRefund?.amount ?? 0n) : log!.amount);
    const at = call ? call.createdAt : log!.receivedAt;
    const document = {
      requestId,
      userId: who.userId,
      apiKeyId: who.apiKeyId,
      tool: who.toolId,
      status: call?.status ?? null,
      httpStatus: call ? call.httpStatus : log!.httpStatus,
      units,
      amount,
      latencyMs: call?.latencyMs ?? null,
      createdAt: at.toISOString(),
      completedAt: call?.completedAt?.toISOString() ?? null,
      /** When the call was refunded (by the gateway as it failed, the abandoned-call sweep or an operator); null if it was not. */
      refundedAt: call?.refundedAt?.toISOString() ?? null,
      /** What an operator gave back to the balance (`calls refund`); null if none did. */
      operatorRefund: operatorRefund ? formatMoney(operatorRefund.amount) : null,
      llm: llm ?? null,
      paidBy: paid,
      ledger: entries.map((e) => ({ id: e.id, kind: e.kind, method: e.method, amount: formatMoney(e.amount), reference: e.reference, at: e.createdAt.toISOString() })),
      log: logDocument(log),
    };
    printRecord(
      ctx,
      [
        ["request id", requestId],
        ["user", String(who.userId)],
        ["key", `#${who.apiKeyId}`],
        ["tool", escapeUnprintable(who.toolId)],
        ["status", call ? `${call.status}${call.httpStatus === null ? "" : ` (HTTP ${call.httpStatus})`}` : "not charged"],
        ["units", String(units)],
        ...(llm
          ? ([
              ["model", llm.model],
              ["tokens", `${llm.inputTokens} in (${llm.cachedInputTokens} cached) ${llm.inputAmount}, ${llm.outputTokens} out ${llm.outputAmount}, ${llm.origin}`],
            ] as [string, string][])
          : []),
        ["amount", amount],
        ["at", beijingDateTime(at)],
        // The tool's own time, from its call to its last byte; the call log's "took" adds the gateway's part.
        ["ended", call?.completedAt ? `${beijingDateTime(call.completedAt)}${call.latencyMs === null ? "" : `, the tool took ${call.latencyMs === 0 ? "under 1" : call.latencyMs} ms`}` : "-"],
        // An operator may refund a call long after it ended: the refund has its own time.
        ...(call?.refundedAt
          ? ([["refunded", `${beijingDateTime(call.refundedAt)}${operatorRefund ? `, ${formatMoney(operatorRefund.amount)} back to the balance by an operator` : ""}`]] as [string, string][])
          : []),
        ["paid by", paidByField(call?.status ?? null, paid)],
        ...logFields(log, log && refusedByGateway(log) ? isBuiltin(ctx.config, who.toolId) : null),
        ["ledger", entries.map((e) => `#${e.id} ${e.kind} ${formatMoney(e.amount)} ${e.method} "${e.reference}" ${beijingDateTime(e.createdAt)}`)],
      ],
      { json: options.json === true, document },
    );
    return 0;
  },
};

/** What paid for the call, or why nothing did. */
function paidByField(status: string | null, paid: PaidPart[] | null): string {
  if (status === null) return "nothing: the call was never charged";
  if (status === "refunded") return "nothing: the call was refunded (its units back to their lots, its money to the balance)";
  if (status === "pending") return `so far (still running): ${paidByWords(paid!)}`;
  return paidByWords(paid!);
}

/** A lot as the operator reads it: `package Starter (lot 7)`, `free quota (lot 8)`. */
const lotName = (lot: CallLot) => `${lot.source === "free" ? "free quota" : `${lot.source} ${escapeUnprintable(lot.label)}`} (lot ${lot.id})`;

/** Why no lot a call drew from can take its units back. */
function unusableLots(lots: CallLot[], now: Date): string {
  const unusable = lots.filter((lot) => lot.refundedAt !== null || lot.expiresAt.getTime() <= now.getTime());
  const why = unusable.map((lot) =>
    lot.refundedAt !== null
      ? `${lotName(lot)}, which an operator refunded on ${beijingDateTime(lot.refundedAt)}`
      : `${lotName(lot)}, which expired on ${beijingDateTime(lot.expiresAt)}`,
  );
  return (
    `the call was paid with units of ${why.join(" and ")}: units given back to ${unusable.length > 1 ? "them" : "it"} could never be used, so nothing was refunded. ` +
    "Grant the user a package instead (`tollgate admin packages grant`), or credit the money (`tollgate admin credit`)"
  );
}

/** A request id the database has no call of, with how long the call log keeps calls (CALL_LOG_RETENTION_DAYS). */
const noSuchCall = (requestId: string, retentionDays: number, note = "") =>
  `no call has request id "${requestId}" (the call log keeps calls ${counted(retentionDays, "day")}${note})`;

/** Why `calls refund` gave nothing back, in the operator's words: a call never charged, or refunded by whom. */
async function refusedBecause(db: Db, requestId: string, refused: "unknown" | "pending" | "refunded" | "free", retentionDays: number): Promise<string> {
  if (refused === "pending") return "the call is still running: refund it once it has ended";
  if (refused === "free") return "the call cost nothing and used no prepaid units: there is nothing to refund";
  if (refused === "refunded") {
    const [byOperator] = await db.select().from(ledgerEntries).where(eq(ledgerEntries.idempotencyKey, `${OPERATOR_REFUND_KEY_PREFIX}${requestId}`));
    if (byOperator) return `an operator refunded the call already (entry ${byOperator.id}, ${beijingDateTime(byOperator.createdAt)}, "${byOperator.reference}"): a call is refunded once`;
    // A call paid only with prepaid units moves no money when refunded: the audit log says who refunded it.
    const [audited] = await db
      .select()
      .from(operatorAudit)
      // The audit keeps the words as typed: the id in another case or with spaces is the same call.
      .where(
        and(
          eq(operatorAudit.command, "calls refund"),
          eq(operatorAudit.exitCode, 0),
          sql`exists (select from jsonb_array_elements_text(${operatorAudit.argv}) as typed(word) where lower(btrim(typed.word)) = ${requestId.toLowerCase()})`,
        ),
      )
      .orderBy(operatorAudit.id)
      .limit(1);
    return audited
      ? `an operator (${escapeUnprintable(audited.hostUser)}) refunded the call already, ${beijingDateTime(audited.at)}: a call is refunded once`
      : "the gateway refunded the call already (it failed, or its answer never reached the caller): there is nothing left to refund";
  }
  const log = await callLogEntry(db, requestId);
  return log
    ? `the call was never charged: it ended ${log.outcome} (HTTP ${log.httpStatus}${log.errorCode === null ? "" : `, ${log.errorCode}`})`
    : noSuchCall(requestId, retentionDays);
}

export const callsRefundCommand: CliCommand = {
  name: "calls refund",
  summary:
    "give back what a charged call cost, once: its money as a refund entry naming the reason, and the prepaid units it used to the packages and free quota they came from",
  usage: 'calls refund <request-id> --reason "…"',
  examples: ['calls refund 0b6f8c2e-5d1a-4c59-9a57-3e0f5f2d7c11 --reason "tool answered garbage, ticket 77"'],
  options: { reason: true },
  async run(ctx, { positionals, options }) {
    const requestId = oneRequestId(positionals);
    const reason = requiredReason(options.reason, "the user sees it as the refund's reference");
    const now = ctx.clock.now();
    const result = await refundChargedCall(ctx.db, { requestId, reason, now });
    if ("refused" in result) {
      ctx.err(`not refunded: ${result.refused === "lot_unusable" ? unusableLots(result.lots, now) : await refusedBecause(ctx.db, requestId, result.refused, ctx.config.calls.retentionDays)}`);
      return 1;
    }
    const units = result.lots.map((lot) => `${counted(lot.units, "unit")} to ${lotName(lot)}`);
    const what = [...(result.refunded > 0n ? [formatMoney(result.refunded)] : []), ...units].join(" and ");
    ctx.out(`refunded ${what} ${units.length > 0 ? "of" : "to"} user ${result.userId} for call ${requestId}`);
    return 0;
  },
};
