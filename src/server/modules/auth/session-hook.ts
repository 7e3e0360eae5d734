import type { FastifyInstance, FastifyRequest } from "fastify";
import fp from "fastify-plugin";
import { AppError } from "../../errors";
import { bearerToken } from "../../lib/bearer";
import { findSession } from "./sessions";

/**
 * Who calls the console API: registered in its scope (app.ts), it reads the session from
 * `Authorization: Bearer <token>` on every request there, so `request.auth` is the caller or null;
 * `signedIn` (lib/signed-in.ts) refuses a visitor where the routes need a caller.
 */
export default fp(
  async function sessionHook(app: FastifyInstance) {
    app.decorateRequest("auth", null);
    app.decorateRequest("bearerToken", null);
    app.addHook("onRequest", async (request) => {
      const token = bearerToken(request.headers.authorization);
      if (!token) return;
      request.bearerToken = token;
      request.auth = await findSession(app.db, token, app.clock.now());
    });
    app.decorateRequest("user", {
      getter(this: FastifyRequest) {
        if (!this.auth) throw AppError.unauthorized();
        return this.auth;
      },
    });
  },
  { name: "auth", dependencies: ["config", "db"] },
);
