import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { formatMoney } from "#shared/money";
import { CURRENCY_SYMBOL } from "#shared/site-config";
import { lotsResponseSchema, purchaseBodySchema, purchaseResponseSchema } from "#shared/plans";
import { AppError } from "../../errors";
import { noQuery } from "../../lib/no-query";
import { buyPackage } from "../ledger/index";
import { lotsOf, lotView, packageTerms } from "./lots";

/** The console's prepaid units: the user's lots, and buying a package from the balance. */
const plansRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    "/console/lots",
    {
      schema: {
        tags: ["plans"],
        summary: "Your free quotas and packages: units left, expiry, where each came from; in the order calls draw them",
        querystring: noQuery,
        response: { 200: lotsResponseSchema },
      },
    },
    async (request, reply) => {
      reply.header("cache-control", "no-store");
      return { lots: await lotsOf(app.db, app.catalog, request.user.userId, app.clock.now()) };
    },
  );

  app.post(
    "/console/packages/purchase",
    {
      schema: {
        tags: ["plans"],
        summary: "Buy a package of a tool's units from the balance; send an Idempotency-Key so a retry buys once",
        body: purchaseBodySchema,
        response: { 201: purchaseResponseSchema },
      },
    },
    async (request, reply) => {
      const tool = app.catalog.get(request.body.toolId);
      const terms = tool && packageTerms(tool, request.body.packageId);
      if (!terms) throw new AppError(404, "unknown_package", `the tool ${request.body.toolId} sells no package "${request.body.packageId}"`);
      const key = request.headers["idempotency-key"];
      if (typeof key !== "string") throw AppError.badRequest("send an Idempotency-Key header with a purchase, so that a retry buys once");
      const now = app.clock.now();
      const bought = await buyPackage(app.db, { userId: request.user.userId, terms, at: now, idempotencyKey: key });
      if (!bought.ok) {
        throw new AppError(402, "insufficient_balance", `the package costs ${CURRENCY_SYMBOL}${formatMoney(terms.price)} and your balance is ${CURRENCY_SYMBOL}${formatMoney(bought.balance)}: top up, then buy again`);
      }
      if (!bought.replayed) app.metrics.packageSold(terms.toolId, terms.price);
      reply.code(201);
      return { lot: lotView(bought.lot, now), balance: formatMoney(bought.balance) };
    },
  );
};

export default plansRoutes;
