import { eq } from "drizzle-orm";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { formatMoney } from "#shared/money";
import { maskPhone, userInfoSchema } from "#shared/user";
import { users } from "../../db/schema/index";
import { AppError } from "../../errors";

const userRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    "/tools/user-info",
    {
      schema: { tags: ["account"], summary: "The signed-in user, with the balance", security: [{ bearer: [] }], response: { 200: userInfoSchema } },
    },
    async (request, reply) => {
      const [user] = await app.db.select().from(users).where(eq(users.id, request.user.userId));
      if (!user) throw AppError.unauthorized();
      reply.header("cache-control", "no-store");
      return {
        id: user.id,
        phone: maskPhone(user.phone),
        balance: formatMoney(user.balance),
        referralCode: user.referralCode,
        createdAt: user.createdAt.toISOString(),
      };
    },
  );
};

export default userRoutes;
