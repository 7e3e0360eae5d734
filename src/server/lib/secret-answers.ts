import type { FastifyReply, FastifyRequest } from "fastify";
import type { WithheldSecret } from "./idempotency-store";

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
    withheldSecret: WithheldSecret | null;
  }
  interface FastifyInstance {
    /** Each kind of withheld secret's reissuer, by `WithheldSecret.kind`, registered by the route that answers with it. */
    secretReissuers: Map<string, SecretReissuer>;
  }
  interface FastifyContextConfig {
    /** How long this route's answers may be replayed, when shorter than the default 24 hours. */
    idempotencyTtlMs?: number;
  }
}

/**
 * For a handler whose JSON answer carries a secret shown once: no cache may keep the answer, and
 * its stored replay copy leaves out `fields`; a replay asks the `kind` reissuer for new ones
 * (plugins/idempotency.ts, decision 001).
 */
export function answerWithSecret(request: FastifyRequest, reply: FastifyReply, withheld: WithheldSecret): void {
  reply.header("cache-control", "no-store");
  request.withheldSecret = withheld;
}
