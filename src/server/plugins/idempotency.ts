import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import fp from "fastify-plugin";
import { and, eq, isNull, lt } from "drizzle-orm";
import { ERROR_CODES } from "../../shared/errors";
import { idempotencyKeys } from "../db/schema/index";
import { AppError } from "../errors";
import { createSealer, sha256Hex } from "../lib/crypto";

export const IDEMPOTENCY_HEADER = "idempotency-key";
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
const KEY_PATTERN = /^[A-Za-z0-9_-]{8,128}$/;
const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

interface Claim {
  scope: string;
  key: string;
}

declare module "fastify" {
  interface FastifyRequest {
    idempotencyClaim: Claim | null;
  }
}

interface StoredResponse {
  contentType: string | undefined;
  body: string;
}

/**
 * SPEC.md §7's client retries POSTs once, so every non-idempotent API request may arrive twice.
 * A request with an `Idempotency-Key` header claims the key for (caller, key); a repeat with the
 * same route and body gets the first 2xx response back without the action running again.
 * Non-2xx outcomes release the key: by convention they changed nothing, so the retry may run.
 */
export default fp(
  async function idempotencyPlugin(app: FastifyInstance) {
    const sealer = createSealer(app.config.sessionSecret, "idempotency");
    app.decorateRequest("idempotencyClaim", null);
    let sweeper: NodeJS.Timeout | undefined;
    app.addHook("onReady", async () => {
      sweeper = setInterval(() => void purgeExpiredIdempotencyKeys(app).catch(() => {}), 3600_000);
      sweeper.unref();
    });
    app.addHook("onClose", async () => clearInterval(sweeper));

    app.addHook("preHandler", async (request: FastifyRequest, reply: FastifyReply) => {
      if (SAFE_METHODS.has(request.method) || !request.url.startsWith("/api/")) return;
      const key = request.headers[IDEMPOTENCY_HEADER];
      if (key === undefined) return;
      if (typeof key !== "string" || !KEY_PATTERN.test(key)) {
        throw AppError.badRequest("Idempotency-Key must be 8 to 128 letters, digits, '-' or '_'");
      }
      const scope = request.auth ? `user:${request.auth.userId}` : "anon";
      const route = `${request.method} ${request.routeOptions.url ?? request.url}`;
      const requestHash = sha256Hex(`${route}\n${JSON.stringify(request.body ?? null)}`);
      const now = app.clock.now();

      const thisKey = and(eq(idempotencyKeys.scope, scope), eq(idempotencyKeys.key, key));
      // A key older than the retention window is forgotten, whether or not the sweeper got to it.
      await app.db
        .delete(idempotencyKeys)
        .where(and(thisKey, lt(idempotencyKeys.createdAt, new Date(now.getTime() - IDEMPOTENCY_TTL_MS))));
      const claimed = await app.db
        .insert(idempotencyKeys)
        .values({ scope, key, route, requestHash, createdAt: now })
        .onConflictDoNothing()
        .returning({ key: idempotencyKeys.key });
      if (claimed.length > 0) {
        request.idempotencyClaim = { scope, key };
        return;
      }

      const [existing] = await app.db.select().from(idempotencyKeys).where(thisKey);
      if (!existing) throw AppError.conflict("request is being processed, retry shortly", ERROR_CODES.idempotencyInProgress);
      if (existing.requestHash !== requestHash) {
        throw new AppError(422, ERROR_CODES.idempotencyMismatch, "Idempotency-Key was already used for a different request");
      }
      if (existing.statusCode === null || existing.sealedResponse === null) {
        throw AppError.conflict("request is being processed, retry shortly", ERROR_CODES.idempotencyInProgress);
      }
      const stored = JSON.parse(sealer.open(existing.sealedResponse)) as StoredResponse;
      reply.code(existing.statusCode).header("idempotent-replayed", "true");
      if (stored.contentType) reply.type(stored.contentType);
      return reply.send(stored.body);
    });

    app.addHook("onSend", async (request, reply, payload) => {
      const claim = request.idempotencyClaim;
      if (!claim) return payload;
      request.idempotencyClaim = null;
      const where = and(eq(idempotencyKeys.scope, claim.scope), eq(idempotencyKeys.key, claim.key));
      if (reply.statusCode >= 200 && reply.statusCode < 300 && (typeof payload === "string" || payload === null)) {
        const stored: StoredResponse = {
          contentType: reply.getHeader("content-type")?.toString(),
          body: payload ?? "",
        };
        await app.db
          .update(idempotencyKeys)
          .set({ statusCode: reply.statusCode, sealedResponse: sealer.seal(JSON.stringify(stored)) })
          .where(and(where, isNull(idempotencyKeys.statusCode)));
      } else {
        await app.db.delete(idempotencyKeys).where(where);
      }
      return payload;
    });
  },
  { name: "idempotency", dependencies: ["db", "auth"] },
);

export async function purgeExpiredIdempotencyKeys(app: FastifyInstance): Promise<void> {
  const cutoff = new Date(app.clock.now().getTime() - IDEMPOTENCY_TTL_MS);
  await app.db.delete(idempotencyKeys).where(lt(idempotencyKeys.createdAt, cutoff));
}
