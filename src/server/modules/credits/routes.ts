import { beijingDate } from "#shared/beijing-time";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { formatMoney } from "#shared/money";
import { creditsPageSchema, creditsQuerySchema } from "#shared/money-api";
import { timeRange } from "../../lib/time-range";
import { creditsCsvStream } from "./csv";
import { allCredits, listCredits, totalCredited, type CreditsFilter } from "./service";

const filterQuery = creditsQuerySchema.pick({ from: true, to: true });

function filterFor(userId: number, query: { from?: string; to?: string }): CreditsFilter {
  return { userId, ...timeRange(query) };
}

/** /console/charge-details: the credits to the balance, and their CSV export. */
const creditsRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    "/console/credits",
    {
      schema: {
        tags: ["credits"],
        summary: "Credits to the balance, newest first, with the total for the filter",
        querystring: creditsQuerySchema,
        response: { 200: creditsPageSchema },
      },
    },
    async (request, reply) => {
      const filter = filterFor(request.user.userId, request.query);
      const now = app.clock.now();
      const [page, total] = await Promise.all([
        listCredits(app.db, filter, { cursor: request.query.cursor, limit: request.query.limit }, now),
        totalCredited(app.db, filter),
      ]);
      reply.header("cache-control", "no-store");
      return { ...page, total: formatMoney(total) };
    },
  );

  app.get(
    "/console/credits.csv",
    {
      schema: {
        tags: ["credits"],
        summary: "The filtered credits as CSV (time, method, amount, status, reference), streamed",
        querystring: filterQuery,
      },
    },
    async (request, reply) => {
      const filter = filterFor(request.user.userId, request.query);
      const stamp = beijingDate(app.clock.now());
      return reply
        .header("cache-control", "no-store")
        .header("content-disposition", `attachment; filename="credits-${stamp}.csv"`)
        .type("text/csv; charset=utf-8")
        .send(creditsCsvStream(allCredits(app.db, filter, app.clock.now())));
    },
  );

  // A console tab opened before the list was renamed (or a script) still asks for the old paths:
  // sent on with their query, so it keeps working until it reloads.
  for (const [before, now] of [
    ["/console/charges", "/console/credits"],
    ["/console/charges.csv", "/console/credits.csv"],
  ] as const) {
    app.get(before, { schema: { hide: true } }, async (request, reply) => reply.redirect(request.url.replace(before, now), 308));
  }
};

export default creditsRoutes;
