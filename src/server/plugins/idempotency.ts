import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import fp from "fastify-plugin";
import { ERROR_CODES } from "#shared/errors";
import { AppError } from "../errors";
import { createIdempotencyStore, type IdempotencyStore, type StoredResponse, type WithheldSecret } from "../lib/idempotency-store";
import { KeyedRequest, idempotencyKeyFrom, replayOn, startKeyedRequest, type IdempotencyRefusals } from "../lib/idempotent-request";
import { loginClientOf } from "../modules/auth/login-cookie";

const IDEMPOTENCY_HEADER = "idempotency-key";
const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/** How long an answer that carries a secret may be replayed: enough for a retry of a lost answer. */
export const SECRET_REPLAY_TTL_MS = 10 * 60_000;

/**
 * Makes the secret of a replayed answer anew (a new token for the same session, a new secret for
 * the same key) and returns the fields to put back into the stored answer; null when the thing it
 * acts on is gone (logged out, deleted), and the answer cannot be replayed.
 */
export type SecretReissuer = (ref: number, now: Date) => Promise<Record<string, unknown> | null>;

declare module "fastify" {
  interface FastifyRequest {
    idempotencyClaim: KeyedRequest | null;
    withheldSecret: WithheldSecret | null;
  }
  interface FastifyInstance {
    idempotency: IdempotencyStore;
    secretReissuers: Map<string, SecretReissuer>;
  }
  interface FastifyContextConfig {
    /** How long this route's answers may be replayed, when shorter than the default 24 hours. */
    idempotencyTtlMs?: number;
  }
}

/**
 * For a handler whose JSON answer carries a secret shown once: no cache may keep the answer, and
 * its stored replay copy leaves out `fields`; a replay asks the `kind` reissuer for new ones.
 */
export function answerWithSecret(request: FastifyRequest, reply: FastifyReply, withheld: WithheldSecret): void {
  reply.header("cache-control", "no-store");
  request.withheldSecret = withheld;
}

function withoutFields(json: string, fields: string[]): string {
  const body = JSON.parse(json) as Record<string, unknown>;
  for (const field of fields) delete body[field];
  return JSON.stringify(body);
}

/** The console API's refusals, in its `{code, message}` shape. */
const CONSOLE_REFUSALS: IdempotencyRefusals = {
  invalidKey: () => AppError.badRequest("Idempotency-Key must be 8 to 128 letters, digits, '-' or '_'"),
  reused: () => new AppError(422, ERROR_CODES.idempotencyMismatch, "Idempotency-Key was already used for a different request"),
  inProgress: () => AppError.conflict("request is being processed, retry shortly", ERROR_CODES.idempotencyInProgress),
};

/**
 * SPEC.md §7's client retries POSTs once, so every non-idempotent API request may arrive twice.
 * A request with an `Idempotency-Key` header claims the key for (caller, key); a repeat with the
 * same route and body gets the first 2xx response back without the action running again. The
 * caller is the signed-in user, or for a signed-out request the browser's login cookie; a
 * signed-out request without it runs without the key. The route is the path and query as sent, so a
 * key reused on another resource (PATCH /keys/3, then /keys/4) is refused, not answered for the first.
 * Non-2xx outcomes release the key: by convention they changed nothing, so the retry may run.
 * An answer carrying a secret is stored without it and replayed with a new one (`answerWithSecret`).
 * See docs/decisions/001-idempotency-keys.md.
 */
export default fp(
  async function idempotencyPlugin(app: FastifyInstance) {
    const store = createIdempotencyStore(app.db, app.config.sessionSecret, app.instanceId);
    app.decorate("idempotency", store);
    app.decorate("secretReissuers", new Map<string, SecretReissuer>());
    app.decorateRequest("idempotencyClaim", null);
    app.decorateRequest("withheldSecret", null);
    app.every("purge expired Idempotency-Keys", 3600_000, () => store.purgeExpired(app.clock.now()));

    /**
     * Whose key it is: the signed-in user, or a signed-out request's browser (its login cookie),
     * so anyone else repeating the request never gets its answer, a login's new token included.
     */
    const callerScope = (request: FastifyRequest): string | null => {
      if (request.auth) return `user:${request.auth.userId}`;
      const browser = loginClientOf(app.config.sessionSecret, request);
      return browser && `browser:${browser}`;
    };

    app.addHook("preHandler", async (request: FastifyRequest, reply: FastifyReply) => {
      if (SAFE_METHODS.has(request.method) || !request.url.startsWith("/api/")) return;
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
  { name: "idempotency", dependencies: ["config", "db", "auth", "instance-lease"] },
);
