import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { userInfoSchema } from "#shared/user";
import { AppError } from "../../errors";
import { findUserInfo } from "./service";

const userRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    "/tools/user-info",
    {
      schema: { tags: ["account"], summary: "The signed-in user, with the balance", security: [{ bearer: [] }], response: { 200: userInfoSchema } },
    },
    async (request, reply) => {
      const user = await findUserInfo(app.db, request.user.userId);
      if (!user) throw AppError.unauthorized();
      reply.header("cache-control", "no-store");
      return user;
    },
  );
};

export default userRoutes;
