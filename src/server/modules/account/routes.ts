import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { referralsSchema, runwaySchema, usageQuerySchema, usageSchema } from "#shared/account";
import { userInfoSchema } from "#shared/user";
import { AppError } from "../../errors";
import { noQuery } from "../../lib/no-query";
import { referralsOf } from "./referrals";
import { runwayOf } from "./runway";
import { usageByDay } from "./usage";
import { findUserInfo } from "./user-info";

const tags = ["account"];
/** What /console/info shows: the user with the balance, the referral link, recent usage and the runway. */
const accountRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    "/tools/user-info",
    { schema: { tags, summary: "The signed-in user, with the balance", querystring: noQuery, response: { 200: userInfoSchema } } },
    async (request, reply) => {
      const user = await findUserInfo(app.db, request.user.userId);
      if (!user) throw AppError.unauthorized();
      reply.header("cache-control", "no-store");
      return user;
    },
  );

  app.get(
    "/console/referrals",
    { schema: { tags, summary: "Your referral link and how many users signed up through it", querystring: noQuery, response: { 200: referralsSchema } } },
    async (request, reply) => {
      const referrals = await referralsOf(app.db, { userId: request.user.userId, publicUrl: app.config.publicUrl });
      if (!referrals) throw AppError.unauthorized();
      reply.header("cache-control", "no-store");
      return referrals;
    },
  );

  app.get(
    "/console/usage",
    { schema: { tags, summary: "Calls and spend per day", querystring: usageQuerySchema, response: { 200: usageSchema } } },
    async (request, reply) => {
      reply.header("cache-control", "no-store");
      return usageByDay(app.db, {
        userId: request.user.userId,
        now: app.clock.now(),
        days: request.query.days,
        tzOffsetMinutes: request.query.tzOffset,
      });
    },
  );

  app.get(
    "/console/runway",
    { schema: { tags, summary: "How long the balance lasts at the last 7 days' average spend", querystring: noQuery, response: { 200: runwaySchema } } },
    async (request, reply) => {
      reply.header("cache-control", "no-store");
      return runwayOf(app.db, { userId: request.user.userId, now: app.clock.now() });
    },
  );
};

export default accountRoutes;
