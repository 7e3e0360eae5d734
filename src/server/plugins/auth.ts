import type { FastifyInstance, FastifyRequest } from "fastify";
import fp from "fastify-plugin";
import { AppError } from "../errors";
import { bearerToken } from "../lib/bearer";
import { findSession, type SessionIdentity } from "../modules/auth/sessions";

declare module "fastify" {
  interface FastifyRequest {
    /** The signed-in caller, resolved from `Authorization: Bearer <token>`; null for visitors. */
    auth: SessionIdentity | null;
    bearerToken: string | null;
  }
  interface FastifyInstance {
    requireUser(request: FastifyRequest): Promise<void>;
  }
}

export default fp(
  async function authPlugin(app: FastifyInstance) {
    app.decorateRequest("auth", null);
    app.decorateRequest("bearerToken", null);
    app.addHook("onRequest", async (request) => {
      if (!request.url.startsWith("/api/")) return;
      const token = bearerToken(request.headers.authorization);
      if (!token) return;
      request.bearerToken = token;
      request.auth = await findSession(app.db, token, app.clock.now());
    });
    app.decorate("requireUser", async (request: FastifyRequest) => {
      if (!request.auth) throw AppError.unauthorized();
    });
  },
  { name: "auth", dependencies: ["db"] },
);
