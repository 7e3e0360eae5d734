import type { FastifyBaseLogger, FastifyReply } from "fastify";
import { IDEMPOTENCY_KEY_PATTERN, type ClaimInput, type HeldClaim, type IdempotencyStore, type StoredResponse } from "./idempotency-store";

/** How a route family refuses a keyed request, each in its own error shape. */
export interface IdempotencyRefusals {
  /** The header is not 8 to 128 letters, digits, '-' or '_'. */
  invalidKey(): Error;
  /** The key was used before for another route or body. */
  reused(): Error;
  /** The key's first request has no answer yet. */
  inProgress(): Error;
}

type State = "claimed" | "begun" | "kept" | "released";

/**
 * A request holding its Idempotency-Key's claim, from the claim to its end. The one state machine
 * of both route families (docs/decisions/052):
 *
 *     claimed ─┬─ keep ─────────────────────────▶ kept      (its answer replays to every retry)
 *              ├─ release ──────────────────────▶ released  (it changed nothing: a retry runs)
 *              └─ begin ─▶ begun ─┬─ keep ──────▶ kept      (a stream's head went out; then its end decides)
 *                                 └─ release ───▶ released
 *
 * A transition from an ended state is a bug in the caller and throws; a write that fails leaves the
 * state where it was.
 */
export class KeyedRequest {
  private state: State = "claimed";

  constructor(
    private readonly store: IdempotencyStore,
    readonly claim: HeldClaim,
  ) {}

  /** Runs `write` for a transition from one of `from` to `to`; the state moves once the write is done. */
  private async move(from: readonly State[], to: State, write: () => Promise<void>): Promise<void> {
    if (!from.includes(this.state)) throw new Error(`an Idempotency-Key claim cannot go from ${this.state} to ${to}`);
    await write();
    this.state = to;
  }

  /** A streamed answer's head is going out with `statusCode`: until its end, retries are refused as in progress. */
  async begin(statusCode: number): Promise<void> {
    await this.move(["claimed"], "begun", () => this.store.begin(this.claim, statusCode));
  }

  /** Keeps `answer` for replay; throws, still holding the claim, when it could not be kept. */
  async keep(answer: StoredResponse): Promise<void> {
    await this.move(["claimed", "begun"], "kept", () => this.store.complete(this.claim, answer));
  }

  /** The action changed nothing: the key is freed and a retry runs. */
  async release(): Promise<void> {
    await this.move(["claimed", "begun"], "released", () => this.store.release(this.claim));
  }

  /**
   * The end of a request whose answer is already on its way: `kept` is the answer to replay, or
   * null when it changed nothing. An answer that cannot be kept is logged and its key stays
   * claimed, so that a retry is refused rather than run twice.
   */
  async settle(kept: StoredResponse | null, log: FastifyBaseLogger): Promise<void> {
    if (kept === null) return this.release();
    await this.keep(kept).catch((error: unknown) => log.error({ err: error }, "could not keep an answer for replay; its key stays claimed"));
  }
}

/** What a keyed request does next: run, holding the claim, or answer with the first request's answer. */
export type KeyedStart = { run: KeyedRequest } | { replay: StoredResponse };

/** An `Idempotency-Key` header's value, refused in the family's shape unless it is 8 to 128 letters, digits, '-' or '_'. */
export function idempotencyKeyFrom(header: string | string[], refusals: IdempotencyRefusals): string {
  if (typeof header !== "string" || !IDEMPOTENCY_KEY_PATTERN.test(header)) throw refusals.invalidKey();
  return header;
}

/**
 * Claims a key for a request: a key reused for another request, or whose first request is still
 * running, is refused with the family's error; a repeat of an answered request gets that answer to replay.
 */
export async function startKeyedRequest(store: IdempotencyStore, refusals: IdempotencyRefusals, input: ClaimInput): Promise<KeyedStart> {
  const claim = await store.claim(input);
  switch (claim.outcome) {
    case "claimed":
      return { run: new KeyedRequest(store, { scope: input.scope, key: input.key, requestId: input.requestId }) };
    case "replay":
      return { replay: claim.response };
    case "mismatch":
      throw refusals.reused();
    case "in_progress":
      throw refusals.inProgress();
  }
}

/** Starts a replay on `reply`: the first answer's status and type, marked as replayed. Returns its body. */
export function replayOn(reply: FastifyReply, stored: StoredResponse): Buffer {
  reply
    .code(stored.statusCode)
    .header("idempotent-replayed", "true")
    .type(stored.contentType ?? "application/octet-stream");
  return Buffer.from(stored.body, "base64");
}
