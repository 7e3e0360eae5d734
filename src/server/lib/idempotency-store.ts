import { and, eq, isNull, lt } from "drizzle-orm";
import type { FastifyBaseLogger } from "fastify";
import type { Db } from "../db/client";
import { idempotencyKeys } from "../db/schema/index";
import { createSealer, sha256Hex } from "./crypto";

export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
export const IDEMPOTENCY_KEY_PATTERN = /^[A-Za-z0-9_-]{8,128}$/;

/** Fields of a JSON answer left out of its stored copy, and how its replay makes them anew. */
export interface WithheldSecret {
  /** The name a route registered its reissuer under (`app.idempotency.reissuers`). */
  kind: string;
  /** What the reissuer acts on: the session's or the key's id. */
  ref: number;
  fields: string[];
}

export interface StoredResponse {
  statusCode: number;
  contentType: string | undefined;
  /** Base64 of the body, so binary responses replay byte for byte. */
  body: string;
  withheld?: WithheldSecret;
}

export type Claim =
  | { outcome: "claimed" }
  | { outcome: "replay"; response: StoredResponse }
  | { outcome: "in_progress" }
  | { outcome: "mismatch" };

/**
 * (scope, key) → the first response to a request, kept 24 hours (or the route's shorter time)
 * and sealed. A secret shown once is never part of the stored copy (see `WithheldSecret`). Used
 * for the console API and for gateway calls alike.
 */
export function createIdempotencyStore(db: Db, secret: string) {
  const sealer = createSealer(secret, "idempotency");
  const where = (scope: string, key: string) => and(eq(idempotencyKeys.scope, scope), eq(idempotencyKeys.key, key));

  return {
    /**
     * `abandoned` (gateway calls, with their `requestId`): a claim still unanswered and older than
     * `olderThan` belongs to a process that died, and `resolve` says what became of its call
     * (`answerBegun`: a stream's head went out, see `begin`): "run", and this caller takes the claim
     * over; or the final answer to keep and replay from now on. `ttlMs` shortens how long the
     * answer is kept for replay.
     */
    async claim(input: {
      scope: string;
      key: string;
      route: string;
      fingerprint: string;
      now: Date;
      ttlMs?: number;
      requestId?: string;
      abandoned?: { olderThan: Date; resolve(requestId: string, answerBegun: boolean): Promise<"run" | StoredResponse> };
    }): Promise<Claim> {
      const requestHash = sha256Hex(`${input.route}\n${input.fingerprint}`);
      const ttlMs = Math.min(input.ttlMs ?? IDEMPOTENCY_TTL_MS, IDEMPOTENCY_TTL_MS);
      // A key older than the retention window is forgotten, whether or not the sweeper got to it.
      await db
        .delete(idempotencyKeys)
        .where(and(where(input.scope, input.key), lt(idempotencyKeys.createdAt, new Date(input.now.getTime() - ttlMs))));
      const claimed = await db
        .insert(idempotencyKeys)
        .values({ scope: input.scope, key: input.key, route: input.route, requestHash, requestId: input.requestId, createdAt: input.now })
        .onConflictDoNothing()
        .returning({ key: idempotencyKeys.key });
      if (claimed.length > 0) return { outcome: "claimed" };
      const [existing] = await db.select().from(idempotencyKeys).where(where(input.scope, input.key));
      if (!existing) return { outcome: "in_progress" };
      if (existing.requestHash !== requestHash) return { outcome: "mismatch" };
      if (existing.sealedResponse === null) {
        const { abandoned } = input;
        if (!abandoned || !existing.requestId || existing.createdAt >= abandoned.olderThan) return { outcome: "in_progress" };
        const fate = await abandoned.resolve(existing.requestId, existing.statusCode !== null);
        // Only one retry acts on the claim: the one whose update still sees the dead call's id.
        const unchanged = and(where(input.scope, input.key), eq(idempotencyKeys.requestId, existing.requestId), isNull(idempotencyKeys.sealedResponse));
        if (fate !== "run") {
          await db.update(idempotencyKeys).set({ statusCode: fate.statusCode, sealedResponse: sealer.seal(JSON.stringify(fate)) }).where(unchanged);
          return { outcome: "replay", response: fate };
        }
        const taken = await db
          .update(idempotencyKeys)
          .set({ requestId: input.requestId, createdAt: input.now, statusCode: null })
          .where(unchanged)
          .returning({ key: idempotencyKeys.key });
        return taken.length > 0 ? { outcome: "claimed" } : { outcome: "in_progress" };
      }
      return { outcome: "replay", response: JSON.parse(sealer.open(existing.sealedResponse)) as StoredResponse };
    },

    /** A streamed answer's head is going out with `statusCode`: it cannot be kept, but it has begun. */
    async begin(scope: string, key: string, statusCode: number): Promise<void> {
      await db
        .update(idempotencyKeys)
        .set({ statusCode })
        .where(and(where(scope, key), isNull(idempotencyKeys.sealedResponse)));
    },

    async complete(scope: string, key: string, response: StoredResponse): Promise<void> {
      await db
        .update(idempotencyKeys)
        .set({ statusCode: response.statusCode, sealedResponse: sealer.seal(JSON.stringify(response)) })
        .where(where(scope, key));
    },

    async release(scope: string, key: string): Promise<void> {
      await db.delete(idempotencyKeys).where(where(scope, key));
    },

    /**
     * The end of a claimed request: its action ran and `kept` is the answer to replay, or it
     * changed nothing (`null`) and a retry may run. A ran action's key stays claimed even when
     * its copy cannot be stored, so that a retry is refused rather than run twice.
     */
    async settle(scope: string, key: string, kept: StoredResponse | null, log: FastifyBaseLogger): Promise<void> {
      if (kept === null) return this.release(scope, key);
      await this.complete(scope, key, kept).catch((error: unknown) => log.error({ err: error }, "could not keep an answer for replay; its key stays claimed"));
    },

    async purgeExpired(now: Date): Promise<void> {
      await db.delete(idempotencyKeys).where(lt(idempotencyKeys.createdAt, new Date(now.getTime() - IDEMPOTENCY_TTL_MS)));
    },
  };
}

export type IdempotencyStore = ReturnType<typeof createIdempotencyStore>;
