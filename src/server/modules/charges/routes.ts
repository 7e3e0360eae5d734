import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { formatMoney } from "#shared/money";
import { chargesPageSchema, chargesQuerySchema, redeemBodySchema, redeemResponseSchema } from "#shared/money-api";
import { AppError } from "../../errors";
import { timeRange } from "../../lib/time-range";
import { REDEEM_ERRORS, redeemCode } from "../redemption/service";
import { redeemLimiter } from "../redemption/limits";
import { chargesCsvStream } from "./csv";
import { allCharges, listCharges, totalCredited, type ChargesFilter } from "./service";

const REDEEM_FAILURES = new Set<string>(Object.values(REDEEM_ERRORS));
const filterQuery = chargesQuerySchema.pick({ from: true, to: true });

function filterFor(userId: number, query: { from?: string; to?: string }): ChargesFilter {
  return { userId, ...timeRange(query) };
}

/** /console/charge-details: the credits list, its CSV export and the redeem form. */
const chargesRoutes: FastifyPluginAsyncZod = async (app) => {
  const limiter = redeemLimiter(app);
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
    async (request) => {
      const userId = request.user.userId;
      const attempt = await limiter.reserve(userId, request.ip);
      let redeemed;
      try {
        redeemed = await redeemCode(app.db, {
          userId,
          code: request.body.code,
          now: app.clock.now(),
          topUp: { referralBonusBasisPoints: app.config.money.referralBonusBasisPoints },
        });
      } catch (error) {
        if (error instanceof AppError && REDEEM_FAILURES.has(error.code)) await limiter.recordFailure(attempt, error.code);
        else await limiter.release(attempt);
        throw error;
      }
      await limiter.release(attempt);
      return redeemed;
    },
  );
};

export default chargesRoutes;
