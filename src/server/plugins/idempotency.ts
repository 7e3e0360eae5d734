import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import fp from "fastify-plugin";
import { ERROR_CODES } from "../../shared/errors";
import { AppError } from "../errors";
import { IDEMPOTENCY_KEY_PATTERN, createIdempotencyStore, type IdempotencyStore } from "../lib/idempotency-store";

const IDEMPOTENCY_HEADER = "idempotency-key";
const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

declare module "fastify" {
  interface FastifyRequest {
    idempotencyClaim: { scope: string; key: string } | null;
  }
  interface FastifyInstance {
    idempotency: IdempotencyStore;
  }
}

/** The Idempotency-Key header, validated; null when absent. */
function idempotencyKeyOf(request: FastifyRequest): string | null {
  const key = request.headers[IDEMPOTENCY_HEADER];
  if (key === undefined) return null;
  if (typeof key !== "string" || !IDEMPOTENCY_KEY_PATTERN.test(key)) {
    throw AppError.badRequest("Idempotency-Key must be 8 to 128 letters, digits, '-' or '_'");
  }
  return key;
}

/**
 * SPEC.md §7's client retries POSTs once, so every non-idempotent API request may arrive twice.
 * A request with an `Idempotency-Key` header claims the key for (caller, key); a repeat with the
 * same route and body gets the first 2xx response back without the action running again.
 * Non-2xx outcomes release the key: by convention they changed nothing, so the retry may run.
 * See docs/decisions/001-idempotency-keys.md.
 */
export default fp(
  async function idempotencyPlugin(app: FastifyInstance) {
    const store = createIdempotencyStore(app.db, app.config.sessionSecret);
    app.decorate("idempotency", store);
    app.decorateRequest("idempotencyClaim", null);
    let sweeper: NodeJS.Timeout | undefined;
    app.addHook("onReady", async () => {
      sweeper = setInterval(() => void store.purgeExpired(app.clock.now()).catch(() => {}), 3600_000);
      sweeper.unref();
    });
    app.addHook("onClose", async () => clearInterval(sweeper));

    app.addHook("preHandler", async (request: FastifyRequest, reply: FastifyReply) => {
      if (SAFE_METHODS.has(request.method) || !request.url.startsWith("/api/")) return;
      const key = idempotencyKeyOf(request);
      if (key === null) return;
      const scope = request.auth ? `user:${request.auth.userId}` : "anon";
      const claim = await store.claim({
        scope,
        key,
        route: `${request.method} ${request.routeOptions.url ?? request.url}`,
        fingerprint: JSON.stringify(request.body ?? null),
        now: app.clock.now(),
      });
      switch (claim.outcome) {
        case "claimed":
          request.idempotencyClaim = { scope, key };
          return;
        case "mismatch":
          throw new AppError(422, ERROR_CODES.idempotencyMismatch, "Idempotency-Key was already used for a different request");
        case "in_progress":
          throw AppError.conflict("request is being processed, retry shortly", ERROR_CODES.idempotencyInProgress);
        case "replay": {
          const { statusCode, contentType, body } = claim.response;
          reply.code(statusCode).header("idempotent-replayed", "true");
          if (contentType) reply.type(contentType);
          return reply.send(Buffer.from(body, "base64"));
        }
      }
    });

    app.addHook("onSend", async (request, reply, payload) => {
      const claim = request.idempotencyClaim;
      if (!claim) return payload;
      request.idempotencyClaim = null;
      const storable = typeof payload === "string" || Buffer.isBuffer(payload) || payload === null;
      if (reply.statusCode >= 200 && reply.statusCode < 300 && storable) {
        // The action has run: its answer goes out even if the copy cannot be kept, and the key
        // stays claimed so that a retry is refused rather than run twice.
        await store
          .complete(claim.scope, claim.key, {
            statusCode: reply.statusCode,
            contentType: reply.getHeader("content-type")?.toString(),
            body: Buffer.from(payload ?? "").toString("base64"),
          })
          .catch((error: unknown) => request.log.error({ err: error }, "could not keep a response for replay; its key stays claimed"));
      } else {
        await store.release(claim.scope, claim.key);
      }
      return payload;
    });
  },
  { name: "idempotency", dependencies: ["db", "auth"] },
);
