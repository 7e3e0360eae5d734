import { and, eq, isNull, lt, sql, type SQL } from "drizzle-orm";
import type { Db, Tx } from "../db/client";
import { idempotencyKeys, instanceLeases } from "../db/schema/index";
import { createSealer, sha256Hex } from "./crypto";

export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
export const IDEMPOTENCY_KEY_PATTERN = /^[A-Za-z0-9_-]{8,128}$/;

/** Fields of a JSON answer left out of its stored copy, and how its replay makes them anew. */
export interface WithheldSecret {
  /** The name a route registered its reissuer under (`app.secretReissuers`). */
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

/** A claim as its request holds it: only that request (`requestId`) may answer or release it. */
export interface HeldClaim {
  scope: string;
  key: string;
  requestId: string;
}

/**
 * What became of an unanswered call whose claim is taken over, learnt and settled inside the
 * transaction that takes it over: "run" (the retry runs it afresh) or the final answer to keep.
 */
export type ResolveAbandoned = (tx: Tx, requestId: string, answerBegun: boolean) => Promise<"run" | StoredResponse>;

/** A request claiming (scope, key); `route` and `fingerprint` tell its repeats from another request. */
export interface ClaimInput {
  scope: string;
  key: string;
  route: string;
  fingerprint: string;
  now: Date;
  requestId: string;
  ttlMs?: number;
  abandoned?: { olderThan: Date; resolve: ResolveAbandoned };
}

/**
 * (scope, key) → the first response to a request, kept 24 hours (or the route's shorter time)
 * and sealed. A secret shown once is never part of the stored copy (see `WithheldSecret`). Used
 * for the console API and for gateway calls alike. Claims made here name `instanceId`, this
 * process's lease (lib/instance-lease.ts). A request goes through its claim as a `KeyedRequest`
 * (lib/idempotent-request.ts).
 */
export function createIdempotencyStore(db: Db, secret: string, instanceId: string) {
  const sealer = createSealer(secret, "idempotency");
  const where = (scope: string, key: string) => and(eq(idempotencyKeys.scope, scope), eq(idempotencyKeys.key, key));
  const held = (claim: HeldClaim) => and(where(claim.scope, claim.key), eq(idempotencyKeys.requestId, claim.requestId));
  /** A claim with whether its holder is gone: another process whose lease ran out (or was ended). */
  const read = (runner: Db | Tx, condition: SQL | undefined, now: Date) =>
    runner
      .select({
        row: idempotencyKeys,
        holderGone: sql<boolean>`coalesce(${idempotencyKeys.instanceId} <> ${instanceId} and ${instanceLeases.expiresAt} < ${now.toISOString()}::timestamptz, false)`,
      })
      .from(idempotencyKeys)
      .leftJoin(instanceLeases, eq(instanceLeases.id, idempotencyKeys.instanceId))
      .where(condition);

  return {
    /**
     * `abandoned` (gateway calls): a claim still unanswered whose holder is gone (its process's lease
     * ran out), or older than `olderThan` whoever holds it, belongs to a call that will never be
     * answered. In one transaction, under a lock on the claim, `resolve` settles what became of
     * that call (`answerBegun`: a stream's head went out, see `begin`): "run", and this caller
     * takes the claim over; or the final answer to keep and replay from now on. A claim whose
     * holder is alive stays in progress. `ttlMs` shortens how long the answer is kept for replay.
     */
    async claim(input: ClaimInput): Promise<Claim> {
      const requestHash = sha256Hex(`${input.route}\n${input.fingerprint}`);
      const ttlMs = Math.min(input.ttlMs ?? IDEMPOTENCY_TTL_MS, IDEMPOTENCY_TTL_MS);
      // A key older than the retention window is forgotten, whether or not the sweeper got to it.
      await db
        .delete(idempotencyKeys)
        .where(and(where(input.scope, input.key), lt(idempotencyKeys.createdAt, new Date(input.now.getTime() - ttlMs))));
      const claimed = await db
        .insert(idempotencyKeys)
        .values({ scope: input.scope, key: input.key, route: input.route, requestHash, requestId: input.requestId, instanceId, createdAt: input.now })
        .onConflictDoNothing()
        .returning({ key: idempotencyKeys.key });
      if (claimed.length > 0) return { outcome: "claimed" };
      const [found] = await read(db, where(input.scope, input.key), input.now);
      if (!found) return { outcome: "in_progress" };
      const existing = found.row;
      if (existing.requestHash !== requestHash) return { outcome: "mismatch" };
      if (existing.sealedResponse !== null) return { outcome: "replay", response: JSON.parse(sealer.open(existing.sealedResponse)) as StoredResponse };
      const { abandoned } = input;
      const unanswered = (claim: typeof existing, holderGone: boolean) =>
        abandoned !== undefined && claim.requestId !== null && (holderGone || claim.createdAt < abandoned.olderThan);
      if (!unanswered(existing, found.holderGone)) return { outcome: "in_progress" };
      return db.transaction(async (tx): Promise<Claim> => {
        // Only one retry acts on the claim: the one that locks it while it still holds the dead call.
        const dead = and(where(input.scope, input.key), eq(idempotencyKeys.requestId, existing.requestId!), isNull(idempotencyKeys.sealedResponse));
        const [locked] = await read(tx, dead, input.now).for("update", { of: idempotencyKeys });
        if (!locked || !unanswered(locked.row, locked.holderGone)) return { outcome: "in_progress" };
        const fate = await abandoned!.resolve(tx, existing.requestId!, locked.row.statusCode !== null);
        if (fate !== "run") {
          await tx.update(idempotencyKeys).set({ statusCode: fate.statusCode, sealedResponse: sealer.seal(JSON.stringify(fate)) }).where(dead);
          return { outcome: "replay", response: fate };
        }
        await tx.update(idempotencyKeys).set({ requestId: input.requestId, instanceId, createdAt: input.now, statusCode: null }).where(dead);
        return { outcome: "claimed" };
      });
    },

    /** A streamed answer's head is going out with `statusCode`: it cannot be kept, but it has begun. */
    async begin(claim: HeldClaim, statusCode: number): Promise<void> {
      await db
        .update(idempotencyKeys)
        .set({ statusCode })
        .where(and(held(claim), isNull(idempotencyKeys.sealedResponse)));
    },

    async complete(claim: HeldClaim, response: StoredResponse): Promise<void> {
      await db
        .update(idempotencyKeys)
        .set({ statusCode: response.statusCode, sealedResponse: sealer.seal(JSON.stringify(response)) })
        .where(held(claim));
    },

    /** Frees the key, unless a retry took the claim over meanwhile (this request's process was taken for dead). */
    async release(claim: HeldClaim): Promise<void> {
      await db.delete(idempotencyKeys).where(held(claim));
    },

    async purgeExpired(now: Date): Promise<void> {
      await db.delete(idempotencyKeys).where(lt(idempotencyKeys.createdAt, new Date(now.getTime() - IDEMPOTENCY_TTL_MS)));
    },
  };
}

export type IdempotencyStore = ReturnType<typeof createIdempotencyStore>;
