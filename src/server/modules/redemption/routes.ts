import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { redeemBodySchema, redeemResponseSchema } from "#shared/money-api";
import { countTopUp } from "../ledger/index";
import { redeemCodeWithinLimits } from "./service";

/** The redeem form of /console/charge-details. */
const redemptionRoutes: FastifyPluginAsyncZod = async (app) => {
  app.post(
    "/console/redeem",
    {
      schema: {
        tags: ["credits"],
        summary: "Redeem a code: its amount is credited to the balance",
        body: redeemBodySchema,
        response: { 200: redeemResponseSchema },
      },
    },
    async (request) => {
      const redeemed = await redeemCodeWithinLimits(app.db, {
        userId: request.user.userId,
        ip: request.ip,
        code: request.body.code,
        now: app.clock.now(),
        topUp: { referralBonusBasisPoints: app.config.money.referralBonusBasisPoints },
        limits: app.config.money,
      });
      countTopUp(app.metrics, "redemption", redeemed.credited, redeemed.referralBonus);
      return redeemed.answer;
    },
  );
};

export default redemptionRoutes;
