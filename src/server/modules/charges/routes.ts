import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { formatMoney } from "#shared/money";
import { chargesPageSchema, chargesQuerySchema, redeemBodySchema, redeemResponseSchema } from "#shared/money-api";
import { timeRange } from "../../lib/time-range";
import { redeemCodeWithinLimits } from "../redemption/service";
import { chargesCsvStream } from "./csv";
import { allCharges, listCharges, totalCredited, type ChargesFilter } from "./service";

const filterQuery = chargesQuerySchema.pick({ from: true, to: true });

function filterFor(userId: number, query: { from?: string; to?: string }): ChargesFilter {
  return { userId, ...timeRange(query) };
}

/** /console/charge-details: the credits list, its CSV export and the redeem form. */
const chargesRoutes: FastifyPluginAsyncZod = async (app) => {
  const security = [{ bearer: [] }];

  app.get(
    "/console/charges",
    {
      schema: {
        tags: ["charges"],
        summary: "Credits to the balance, newest first, with the total for the filter",
        security,
        querystring: chargesQuerySchema,
        response: { 200: chargesPageSchema },
      },
    },
    async (request, reply) => {
      const filter = filterFor(request.user.userId, request.query);
      const now = app.clock.now();
      const [page, total] = await Promise.all([
        listCharges(app.db, filter, { cursor: request.query.cursor, limit: request.query.limit }, now),
        totalCredited(app.db, filter),
      ]);
      reply.header("cache-control", "no-store");
      return { ...page, total: formatMoney(total) };
    },
  );

  app.get(
    "/console/charges.csv",
    {
      schema: {
        tags: ["charges"],
        summary: "The filtered credits as CSV (time, method, amount, status, reference), streamed",
        security,
        querystring: filterQuery,
      },
    },
    async (request, reply) => {
      const filter = filterFor(request.user.userId, request.query);
      const stamp = app.clock.now().toISOString().slice(0, 10);
      return reply
        .header("cache-control", "no-store")
        .header("content-disposition", `attachment; filename="charges-${stamp}.csv"`)
        .type("text/csv; charset=utf-8")
        .send(chargesCsvStream(allCharges(app.db, filter, app.clock.now())));
    },
  );

  app.post(
    "/console/redeem",
    {
      schema: {
        tags: ["charges"],
        summary: "Redeem a code: its amount is credited to the balance",
        security,
        body: redeemBodySchema,
        response: { 200: redeemResponseSchema },
      },
    },
    async (request) =>
      redeemCodeWithinLimits(app.db, {
        userId: request.user.userId,
        ip: request.ip,
        code: request.body.code,
        now: app.clock.now(),
        topUp: { referralBonusBasisPoints: app.config.money.referralBonusBasisPoints },
        limits: app.config.money,
      }),
  );
};

export default chargesRoutes;
