import type { FastifyInstance, FastifyPluginAsync, FastifyPluginOptions, FastifyRequest } from "fastify";
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
  interface FastifyRequest {
    /** The signed-in caller's session, in routes registered through `signedIn` (a visitor never reaches them). */
    readonly user: SessionIdentity;
  }
}

/**
 * The routes of `plugin` in a scope of their own whose every request must be signed in: one
 * authentication hook for the scope (fastify/demo's autohooks), a visitor gets 401. Within it,
 * `request.user` is the caller's session.
 */
export function signedIn<Options extends FastifyPluginOptions>(plugin: FastifyPluginAsync<Options>): FastifyPluginAsync<Options> {
  return async (scope, options) => {
    // The API docs say so for every route of the scope: it needs the session's bearer token.
    scope.addHook("onRoute", (route) => {
      route.schema = { ...route.schema, security: [{ bearer: [] }] };
    });
    scope.addHook("preHandler", async (request) => {
      if (!request.auth) throw AppError.unauthorized();
    });
    await scope.register(plugin, options);
  };
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
    app.decorateRequest("user", {
      getter(this: FastifyRequest) {
        if (!this.auth) throw AppError.unauthorized();
        return this.auth;
      },
    });
  },
  { name: "auth", dependencies: ["config", "db"] },
);
