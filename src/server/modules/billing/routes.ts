import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { beijingDate, beijingIso } from "#shared/beijing-time";
import { BILLING_CSV_HEADER, billingPageSchema, billingQuerySchema, type BillingRow, type LlmChargeRow, type PaidPart, type PurchaseRow } from "#shared/billing";
import { timeRange } from "../../lib/time-range";
import { csvStream, type CsvCell } from "../../lib/csv";
import { allBilling, billingTotal, listBilling, paidByWords, type BillingFilter } from "./service";

/** An LLM call's model, tokens, amounts and their origin; empty cells for any other call. */
const llmCells = (llm: LlmChargeRow | null): CsvCell[] =>
  llm
    ? [llm.model, ...[llm.inputTokens, llm.cachedInputTokens, llm.outputTokens, llm.inputAmount, llm.cachedInputAmount, llm.outputAmount].map((numeric) => ({ numeric })), llm.origin]
    : Array<CsvCell>(8).fill("");

/** The units each kind of source paid, as numbers: free, packages, grants, the balance. */
const unitsBySource = (parts: PaidPart[]): CsvCell[] =>
  (["free", "package", "grant", "balance"] as const).map((source) => ({ numeric: parts.reduce((sum, part) => sum + (part.source === source ? part.units : 0), 0) }));

/** A package bought: its name, when its units expire, and when an operator refunded its unused units; empty for a call. */
function packageBoughtCell(purchase: PurchaseRow | null): string {
  if (!purchase) return "";
  const bought = `${purchase.name}, expires ${beijingDate(purchase.expiresAt)}`;
  return purchase.refundedAt ? `${bought}; unused units refunded on ${beijingDate(purchase.refundedAt)}` : bought;
}

/** One billing row as CSV cells; a purchase has no key, request id or LLM usage. */
const csvCells = (row: BillingRow): CsvCell[] => [
  beijingIso(row.time),
  row.toolId,
  row.keyName ?? "",
  { numeric: row.units },
  { numeric: row.amount },
  row.requestId ?? "",
  ...llmCells(row.llm),
  paidByWords(row.paidBy),
  ...unitsBySource(row.paidBy),
  packageBoughtCell(row.purchase),
];

const filterQuery = billingQuerySchema.omit({ cursor: true, limit: true });

function filterFor(userId: number, query: { from?: string; to?: string; toolId?: string; keyId?: number }): BillingFilter {
  return { userId, ...timeRange(query), toolId: query.toolId || undefined, keyId: query.keyId };
}

/** /console/billing-details: one row per charged call or package bought, filtered, paged, totalled and exportable. */
const billingRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    "/console/billing",
    {
      schema: {
        tags: ["billing"],
        summary: "Charged calls and packages bought, newest first, with the total for the filter",
        querystring: billingQuerySchema,
        response: { 200: billingPageSchema },
      },
    },
    async (request, reply) => {
      const filter = filterFor(request.user.userId, request.query);
      const [page, total] = await Promise.all([
        listBilling(app.db, filter, { cursor: request.query.cursor, limit: request.query.limit }),
        billingTotal(app.db, filter),
      ]);
      reply.header("cache-control", "no-store");
      return { ...page, total };
    },
  );

  app.get(
    "/console/billing.csv",
    {
      schema: {
        tags: ["billing"],
        summary: "The filtered charged calls and packages bought as CSV (time, tool, key, units, amount, request id; for LLM calls the model, tokens and amount of each, and their origin; what paid for each; the package bought), streamed",
        querystring: filterQuery,
      },
    },
    async (request, reply) => {
      const rows = allBilling(app.db, filterFor(request.user.userId, request.query));
      const stamp = beijingDate(app.clock.now());
      return reply
        .header("cache-control", "no-store")
        .header("content-disposition", `attachment; filename="billing-${stamp}.csv"`)
        .type("text/csv; charset=utf-8")
        .send(csvStream(BILLING_CSV_HEADER, rows, csvCells));
    },
  );
};

export default billingRoutes;
