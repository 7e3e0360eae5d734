import type { FastifyPluginAsync, FastifyPluginOptions } from "fastify";
import { AppError } from "../errors";

/** A signed-in caller: the session its bearer token opened, and whose it is. */
export interface SessionIdentity {
  sessionId: number;
  userId: number;
}

declare module "fastify" {
  interface FastifyRequest {
    /** The signed-in caller of the console API, resolved from `Authorization: Bearer <token>`; null for visitors. */
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
 * `request.user` is the caller's session. The console scope resolves the session
 * (modules/auth/session-hook.ts).
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
