import { eq, inArray } from "drizzle-orm";
import { beijingDateTime } from "#shared/beijing-time";
import { formatMoney } from "#shared/money";
import { requiredReason } from "../../lib/cli/args";
import { UsageError, type CliCommand } from "../../lib/cli/command";
import { printRecord } from "../../lib/cli/records";
import { ledgerEntries, llmUsage, usageRecords } from "../../db/schema/index";
import { refundChargedCall } from "../ledger/index";

function oneRequestId(positionals: string[]): string {
  const [requestId, ...extra] = positionals;
  if (!requestId || extra.length > 0) throw new UsageError("give one request id (the x-request-id a call was answered with)");
  return requestId;
}

export const callsShowCommand: CliCommand = {
  name: "calls show",
  summary: "one gateway call by its request id: user, key, tool, status, units, amount, times, an LLM call's model and tokens, and the ledger entries it moved",
  usage: "calls show <request-id> [--json]",
  examples: ["calls show 0b6f8c2e-5d1a-4c59-9a57-3e0f5f2d7c11"],
  options: { json: false },
  async run(ctx, { positionals, options }) {
    const requestId = oneRequestId(positionals);
    const [call] = await ctx.db.select().from(usageRecords).where(eq(usageRecords.requestId, requestId));
    if (!call) {
      ctx.err(`no charged call has request id "${requestId}" (calls refused before they were charged leave no row)`);
      return 1;
    }
    const keys = [`usage:${requestId}`, `refund:${requestId}`, `operator-refund:${requestId}`];
    const entries = await ctx.db.select().from(ledgerEntries).where(inArray(ledgerEntries.idempotencyKey, keys)).orderBy(ledgerEntries.id);
    const [tokens] = await ctx.db.select().from(llmUsage).where(eq(llmUsage.usageId, call.id));
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
    const document = {
      requestId,
      userId: call.userId,
      apiKeyId: call.apiKeyId,
      tool: call.toolId,
      status: call.status,
      httpStatus: call.httpStatus,
      units: call.units,
      amount: formatMoney(call.amount),
      latencyMs: call.latencyMs,
      createdAt: call.createdAt.toISOString(),
      completedAt: call.completedAt?.toISOString() ?? null,
      llm: llm ?? null,
      ledger: entries.map((e) => ({ id: e.id, kind: e.kind, method: e.method, amount: formatMoney(e.amount), reference: e.reference, at: e.createdAt.toISOString() })),
    };
    printRecord(
      ctx,
      [
        ["request id", requestId],
        ["user", String(call.userId)],
        ["key", `#${call.apiKeyId}`],
        ["tool", call.toolId],
        ["status", `${call.status}${call.httpStatus === null ? "" : ` (HTTP ${call.httpStatus})`}`],
        // An LLM call's units are the micro-units it was held and charged (decision 051): its tokens say what it used.
        ["units", String(call.units)],
        ...(llm
          ? ([
              ["model", llm.model],
              ["tokens", `${llm.inputTokens} in (${llm.cachedInputTokens} cached) ${llm.inputAmount}, ${llm.outputTokens} out ${llm.outputAmount}, ${llm.origin}`],
            ] as [string, string][])
          : []),
        ["amount", formatMoney(call.amount)],
        ["at", beijingDateTime(call.createdAt)],
        ["ended", call.completedAt ? `${beijingDateTime(call.completedAt)}${call.latencyMs === null ? "" : `, ${call.latencyMs} ms`}` : "-"],
        ["ledger", entries.map((e) => `#${e.id} ${e.kind} ${formatMoney(e.amount)} ${e.method} "${e.reference}" ${beijingDateTime(e.createdAt)}`)],
      ],
      { json: options.json === true, document },
    );
    return 0;
  },
};

export const callsRefundCommand: CliCommand = {
  name: "calls refund",
  summary: "give back what a charged call cost, once, as a refund entry naming the reason",
  usage: 'calls refund <request-id> --reason "…"',
  examples: ['calls refund 0b6f8c2e-5d1a-4c59-9a57-3e0f5f2d7c11 --reason "tool answered garbage, ticket 77"'],
  options: { reason: true },
  async run(ctx, { positionals, options }) {
    const requestId = oneRequestId(positionals);
    const reason = requiredReason(options.reason, "the user sees it as the refund's reference");
    const result = await refundChargedCall(ctx.db, { requestId, reason, now: ctx.clock.now() });
    if ("refused" in result) {
      const why = {
        unknown: `no charged call has request id "${requestId}"`,
        pending: "the call is still running: refund it once it has ended",
        refunded: "the call was refunded already: a call is refunded once",
        free: "the call cost nothing: there is nothing to refund",
      }[result.refused];
      ctx.err(`not refunded: ${why}`);
      return 1;
    }
    ctx.out(`refunded ${formatMoney(result.refunded)} to user ${result.userId} for call ${requestId}`);
    return 0;
  },
};
