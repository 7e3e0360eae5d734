import type { Readable } from "node:stream";
import type { CallOutcome } from "#shared/calls";
import type { GatewayErrorCode } from "#shared/gateway";
import type { FoundApiKey } from "../keys/index";
import type { PrepaidDraw } from "../ledger/index";
import type { UpstreamFault } from "../../lib/counters";
import { storable } from "../../db/storable-text";
import { upstreamFailed } from "../../lib/upstream-failure";

/** The most of a failed upstream's answer kept for operators. */
export const UPSTREAM_EXCERPT_BYTES = 2048;
/** Tool ids longer than any catalog id are cut: a caller may name anything. */
const TOOL_ID_CHARS = 64;

/** What the tool answered with, as the trace needs it. */
interface ToolAnswer {
  status: number;
  body: Buffer | string | Readable;
  observe?(chunk: Buffer): void;
}

const sinceUs = (from: number) => Math.round((performance.now() - from) * 1000);

/**
 * One gateway call as it happens, and then its row in the call log: the one object logging
 * allocates per call. The gateway marks its steps (key checked, hold committed, the tool's
 * answer); the route ends it with what the caller got.
 */
export class CallTrace {
  readonly toolId: string;
  /** The key the call named and its owner, once found (whether or not it may make the call). */
  caller: FoundApiKey | null = null;
  outcome: CallOutcome = "served";
  httpStatus = 0;
  upstreamStatus: number | null = null;
  held = 0n;
  amount = 0n;
  units = 0;
  streamed = false;
  bytesIn = 0;
  bytesOut = 0;
  totalUs = 0;
  upstreamUs: number | null = null;
  keyCheckedUs: number | null = null;
  heldUs: number | null = null;
  firstByteUs: number | null = null;
  errorCode: GatewayErrorCode | null = null;
  errorMessage: string | null = null;
  upstreamErrorExcerpt: string | null = null;
  /** What broke at the upstream (its answer 5xx, or no answer): null when nothing did. */
  upstreamFault: UpstreamFault | null = null;
  /** Units the call's hold drew from lots, by source in draw order (a tool with plans), and how many of them it used in the end. */
  prepaidDraws: PrepaidDraw[] | null = null;
  prepaidUsed = 0;
  /** Made from the console's "Try it", not by an outside caller. */
  fromConsole = false;
  /** In the call log's queue already: a call is one row, whoever ends it a second time (an answer that failed once recorded). */
  queued = false;
  /** A streamed answer's body as the tool sent it, to tell at its end whether it broke. */
  upstreamBody: Readable | null = null;
  private upstreamStartedAt = 0;

  constructor(
    readonly requestId: string,
    toolId: string,
    readonly clientIp: string,
    readonly receivedAt: Date,
    /** performance.now() when the request was received. */
    private readonly startedAt: number,
  ) {
    this.toolId = storable(toolId.length > TOOL_ID_CHARS ? toolId.slice(0, TOOL_ID_CHARS) : toolId);
  }

  identified(caller: FoundApiKey): void {
    this.caller = caller;
  }

  keyChecked(): void {
    this.keyCheckedUs = sinceUs(this.startedAt);
  }

  /** The call's hold (a built-in tool: its charge) committed, taking `amount` from the balance and `draws` from lots. */
  holdCommitted(amount: bigint, draws?: PrepaidDraw[]): void {
    this.heldUs = sinceUs(this.startedAt);
    this.held = amount;
    if (draws) this.prepaidDraws = draws;
  }

  upstreamStarted(): void {
    this.upstreamStartedAt = performance.now();
  }

  /**
   * The tool answered: its status, and for a failure (lib/upstream-failure.ts) the start of its body for operators.
   * A streamed answer's bytes are counted as they pass.
   */
  upstreamAnswered(answer: ToolAnswer): void {
    this.upstreamStatus = answer.status;
    this.firstByteUs = sinceUs(this.startedAt);
    this.upstreamUs = Math.round((performance.now() - this.upstreamStartedAt) * 1000);
    if (upstreamFailed(answer.status)) {
      this.upstreamFault = "status";
      if (typeof answer.body === "string" || Buffer.isBuffer(answer.body)) {
        const body = typeof answer.body === "string" ? Buffer.from(answer.body) : answer.body;
        this.upstreamErrorExcerpt = storable(body.subarray(0, UPSTREAM_EXCERPT_BYTES).toString("utf8"));
      }
    }
    if (answer.observe) {
      this.streamed = true;
      this.upstreamBody = answer.body as Readable;
      const observe = answer.observe;
      answer.observe = (chunk) => {
        this.bytesOut += chunk.length;
        observe(chunk);
      };
    }
  }

  /** The tool could not be reached, or failed before it answered (`fault`: how; none when the call was given up on this side). */
  upstreamFailed(fault?: UpstreamFault): void {
    this.upstreamUs = Math.round((performance.now() - this.upstreamStartedAt) * 1000);
    if (fault) this.upstreamFault = fault;
  }

  /** The call ended: how long it took in all, and the upstream's share of a streamed answer (to its end). */
  ended(): void {
    this.totalUs = sinceUs(this.startedAt);
    if (this.streamed) this.upstreamUs = Math.round((performance.now() - this.upstreamStartedAt) * 1000);
  }

  /** A refusal or failure: the error the caller got. */
  refused(outcome: CallOutcome, error: { code: GatewayErrorCode; message: string; status: number; bodyBytes: number }): void {
    this.outcome = outcome;
    this.httpStatus = error.status;
    this.errorCode = error.code;
    this.errorMessage = storable(error.message);
    this.bytesOut = error.bodyBytes;
  }
}
