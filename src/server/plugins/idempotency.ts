import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import fp from "fastify-plugin";
import { ERROR_CODES } from "#shared/errors";
import { GATEWAY_ERRORS } from "#shared/gateway";
import { AppError } from "../errors";
import { createIdempotencyStore, type IdempotencyStore, type StoredResponse } from "../lib/idempotency-store";
import { KeyedRequest, idempotencyKeyFrom, replayOn, startKeyedRequest, type IdempotencyRefusals } from "../lib/idempotent-request";
import type { SecretReissuer } from "../lib/secret-answers";

const IDEMPOTENCY_HEADER = "idempotency-key";
const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

declare module "fastify" {
  interface FastifyRequest {
    idempotencyClaim: KeyedRequest | null;
  }
  interface FastifyInstance {
    idempotency: IdempotencyStore;
  }
}

function withoutFields(json: string, fields: string[]): string {
  const body = JSON.parse(json) as Record<string, unknown>;
  for (const field of fields) delete body[field];
  return JSON.stringify(body);
}

/** The console API's refusals, in its `{code, message}` shape. */
const CONSOLE_REFUSALS: IdempotencyRefusals = {
  // The gateway's code for the same mistake (GATEWAY_ERRORS), so a client handles it once for both families.
  invalidKey: () => AppError.badRequest(GATEWAY_ERRORS.invalid_idempotency_key.message, ERROR_CODES.invalidIdempotencyKey),
  reused: () => new AppError(422, ERROR_CODES.idempotencyMismatch, "Idempotency-Key was already used for a different request"),
  inProgress: () => AppError.conflict("request is being processed, retry shortly", ERROR_CODES.idempotencyInProgress),
};

/**
 * The app's one Idempotency-Key store (`app.idempotency`), which both route families claim keys
 * in, the reissuers of withheld secrets, and the hourly purge of expired keys.
 */
export default fp(
  async function idempotencyStorePlugin(app: FastifyInstance) {
    const store = createIdempotencyStore(app.db, app.config.sessionSecret, app.instanceId);
    app.decorate("idempotency", store);
    app.decorate("secretReissuers", new Map<string, SecretReissuer>());
    app.every("purge expired Idempotency-Keys", 3600_000, () => store.purgeExpired(app.clock.now()));
  },
  { name: "idempotency", dependencies: ["config", "db", "instance-lease"] },
);

/**
 * SPEC.md §7's client retries POSTs once, so every non-idempotent console API request may arrive
 * twice; registered in the console's scope (app.ts). A request with an `Idempotency-Key` header
 * claims the key for (caller, key); a repeat with the same route and body gets the first 2xx
 * response back without the action running again. The caller is the signed-in user, or for a
 * signed-out request its browser (`browserOf`: the login cookie); a signed-out request without one
 * runs without the key. The route is the path and query as sent, so a key reused on another
 * resource (PATCH /keys/3, then /keys/4) is refused, not answered for the first. Non-2xx outcomes
 * release the key: by convention they changed nothing, so the retry may run. An answer carrying a
 * secret is stored without it and replayed with a new one (`answerWithSecret`, lib/secret-answers.ts).
 * See docs/decisions/001-idempotency-keys.md and 052.
 */
export const consoleIdempotency = fp(
  async function consoleIdempotencyPlugin(app: FastifyInstance, opts: { browserOf: (request: FastifyRequest) => string | null }) {
    const store = app.idempotency;
    app.decorateRequest("idempotencyClaim", null);
    app.decorateRequest("withheldSecret", null);

    /**
     * Whose key it is: the signed-in user, or a signed-out request's browser (its login cookie),
     * so anyone else repeating the request never gets its answer, a login's new token included.
     */
    const callerScope = (request: FastifyRequest): string | null => {
      if (request.auth) return `user:${request.auth.userId}`;
      const browser = opts.browserOf(request);
      return browser && `browser:${browser}`;
    };

    app.addHook("preHandler", async (request: FastifyRequest, reply: FastifyReply) => {
      if (SAFE_METHODS.has(request.method)) return;
      const header = request.headers[IDEMPOTENCY_HEADER];
      if (header === undefined) return;
      const key = idempotencyKeyFrom(header, CONSOLE_REFUSALS);
      const scope = callerScope(request);
      if (!scope) return;
      const start = await startKeyedRequest(store, CONSOLE_REFUSALS, {
        scope,
        key,
        // The path as sent, not the route's pattern: the same key on /keys/3 and then /keys/4 is two requests.
        route: `${request.method} ${request.url}`,
        fingerprint: JSON.stringify(request.body ?? null),
        now: app.clock.now(),
        requestId: request.id,
        ttlMs: request.routeOptions.config.idempotencyTtlMs,
      });
      if ("run" in start) {
        request.idempotencyClaim = start.run;
        return;
      }
      const body = replayOn(reply, start.replay);
      const { withheld } = start.replay;
      if (!withheld) return reply.send(body);
      const fresh = await app.secretReissuers.get(withheld.kind)?.(withheld.ref, app.clock.now());
      if (!fresh) throw new AppError(422, ERROR_CODES.idempotencyMismatch, "Idempotency-Key was already used, and its answer can no longer be replayed");
      reply.header("cache-control", "no-store");
      return reply.send(JSON.stringify({ ...(JSON.parse(body.toString("utf8")) as object), ...fresh }));
    });

    app.addHook("onSend", async (request, reply, payload) => {
      const claim = request.idempotencyClaim;
      if (!claim) return payload;
      request.idempotencyClaim = null;
      const withheld = request.withheldSecret ?? undefined;
      const storable = typeof payload === "string" || ((Buffer.isBuffer(payload) || payload === null) && !withheld);
      let kept: StoredResponse | null = null;
      if (reply.statusCode >= 200 && reply.statusCode < 300 && storable) {
        const body = withheld ? withoutFields(payload as string, withheld.fields) : payload;
        kept = { statusCode: reply.statusCode, contentType: reply.getHeader("content-type")?.toString(), body: Buffer.from(body ?? "").toString("base64"), withheld };
      }
      await claim.settle(kept, request.log);
      return payload;
    });
  },
  { name: "console-idempotency", dependencies: ["idempotency", "auth"] },
);
