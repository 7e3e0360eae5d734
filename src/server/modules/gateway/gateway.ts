import { and, eq } from "drizzle-orm";
import { LRUCache } from "lru-cache";
import type { FastifyBaseLogger } from "fastify";
import type { Clock } from "../../clock";
import type { Db } from "../../db/client";
import { apiKeys, toolGrants } from "../../db/schema/index";
import { GroupCommitter } from "../../lib/group-commit";
import type { RateLimiter } from "../../lib/rate-limiter";
import type { Tool } from "../catalog/index";
import { apiKeyRefusal, type ApiKeyRefusal, currentPeriodSpend } from "../keys/index";
import type { CallTrace } from "../calls/index";
import { formatMoney } from "#shared/money";
import { CURRENCY_SYMBOL } from "#shared/site-config";
import { insufficientBalanceHoldMessage, ipNotAllowedMessage, QUOTA_HEADER, spendLimitHoldMessage } from "#shared/gateway";
import { spendPeriodEnd, spendPeriodStart } from "#shared/spend-period";
import type { Tiers } from "#shared/tiers";
import { ApiKeyCache } from "./key-cache";
import { GatewayError } from "./gateway-error";
import type { BuiltinTool, RunnableTool, UpstreamTool } from "./handlers/index";
import {
  cutByTotalTimeout,
  isStreamed,
  UpstreamError,
  upstreamTimedOut,
  type MeteredCall,
  type StreamedToolResponse,
  type ToolRequest,
  type ToolResponse,
  type UpstreamRequest,
} from "./handlers/types";
import { llmUsageItem } from "./llm-usage";
import { chargeBatch, completeBatch, type ChargeItem, type ChargeOutcome, type CompletionItem, type PrepaidTerms, refundBatch, type RefundItem, settleLlmCall, settleTiered } from "../ledger/index";
import { relay, type StreamEnd } from "./relay";
import { SeenBalances } from "./seen-balances";
import { BUILTIN_MAX_REQUEST_BYTES, checkDeclaredLength, limitedBody, readWhole } from "./request-body";
import { upstreamFailed } from "../../lib/upstream-failure";

const REFUSALS: Record<ApiKeyRefusal, GatewayError["code"]> = {
  unknown: "invalid_key",
  account_disabled: "account_disabled",
  disabled: "invalid_key",
  expired: "invalid_key",
  ip_not_allowed: "ip_not_allowed",
  tool_not_allowed: "tool_not_allowed",
  spend_limit_reached: "spend_limit_reached",
};

/** A tool whose calls draw on lots: it has a free quota or packages (decision 054). */
const hasPlans = (tool: Tool) => tool.freeQuota !== undefined || tool.packages.length > 0;
const freeLotKey = (userId: number, toolId: string, periodStart: Date) => `${userId}:${toolId}:${periodStart.getTime()}`;

export interface GatewayCall {
  tool: Tool;
  /**
   * The key the call names, by the hash of its secret (`apiKeyHash`; null for a token that cannot
   * be a key): a bearer's, or the key a console try names by its id. Null when it names none.
   */
  credential: { keyHash: string | null } | null;
  clientIp: string;
  requestId: string;
  /** Its body is read only after the call is admitted: whole for a built-in tool, streamed to an upstream. */
  request: UpstreamRequest;
  /** True once the caller has gone away without its answer. */
  callerGone(): boolean;
  /** The call's row in the call log, marked as the call goes. */
  trace?: CallTrace;
}

export type Payer = {
  userId: number;
  apiKeyId: number;
  /**
   * The key has no spend limit (which only the hold's transaction can check) and has not changed
   * in the last second, so its calls may start upstream while their holds commit (decision 038).
   */
  keyAllowsEarlyStart: boolean;
  /** The key refuses a call its free quota and packages do not cover, rather than pay from the balance. */
  stopWhenPrepaidRunsOut: boolean;
};

/** The least a served call is charged, in priced units. */
const MIN_UNITS = 1;
const ABORTED = "the call was aborted by the caller; it was not charged";
/** Whether a tool answered with success (2xx): only such calls are charged. */
export const succeeded = (response: { status: number }) => response.status >= 200 && response.status < 300;

/**
 * The answer and what the call cost (micro-units): for a streamed answer, known once its body has
 * ended. `quotaRemaining`: for a tool with plans, the units left in the caller's free quota and packages.
 */
export type GatewayResult = ({ response: ToolResponse; cost: bigint } | { response: StreamedToolResponse; cost: Promise<bigint> }) & { quotaRemaining?: number };

/**
 * The metered call: key, access and rate checks, then the tool and its charge, batched with
 * concurrent calls into one transaction that commits before the answer is sent. Built-in tools
 * run before they are charged; HTTP upstreams are charged first and refunded if they fail
 * (docs/decisions/010 and 011).
 */
export class Gateway {
  private readonly charges: GroupCommitter<ChargeItem, ChargeOutcome>;
  private readonly refunds: GroupCommitter<RefundItem, boolean>;
  /** Free quotas whose period's lot is known to exist, by user, tool and period start (prepaidTerms). */
  private readonly freeLotsMade = new LRUCache<string, true>({ max: 100_000 });
  private readonly completions: GroupCommitter<CompletionItem, boolean>;
  readonly keys: ApiKeyCache;
  private readonly seenBalances = new SeenBalances();
  private holding = 0;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly log: FastifyBaseLogger,
    private readonly limiter: RateLimiter,
    /** The catalog's tools by id (`runnableTools`). */
    private readonly tools: ReadonlyMap<string, RunnableTool>,
    private readonly options: {
      concurrency: number;
      onChargeBatch?: (size: number, seconds: number, ok: boolean) => void;
      /** Money a call's settlement gave back: all of a failed call's hold, or what a call did not use. */
      onRefund?: (reason: "failed" | "unused", micros: bigint) => void;
    },
  ) {
    this.keys = new ApiKeyCache(db, clock);
    this.charges = new GroupCommitter((items) => chargeBatch(db, items), {
      maxBatch: 500,
      concurrency: options.concurrency,
      onFlush: options.onChargeBatch,
    });
    this.refunds = new GroupCommitter((items) => refundBatch(db, items), { maxBatch: 500, concurrency: 1 });
    this.completions = new GroupCommitter((items) => completeBatch(db, items), { maxBatch: 1000, concurrency: 1 });
  }

  /** Calls of this process whose hold has committed and that are not settled yet. */
  get holdsInFlight(): number {
    return this.holding;
  }

  /** Counts a hold in flight until the returned function is first called. */
  private holdTaken(): () => void {
    this.holding++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.holding--;
    };
  }

  /** Reports money a settlement gave back (`settled`: it was still pending, so the money moved). */
  private refunded(settled: boolean, finalStatus: RefundItem["finalStatus"], micros: bigint): boolean {
    if (settled && micros > 0n) this.options.onRefund?.(finalStatus === "refunded" ? "failed" : "unused", micros);
    return settled;
  }

  private runnable(tool: Tool): RunnableTool {
    const runnable = this.tools.get(tool.id);
    if (!runnable) throw new Error(`tool ${tool.id} is not in the catalog the gateway started with`);
    return runnable;
  }

  /** The largest request body the tool accepts. */
  maxRequestBytes(tool: Tool): number {
    const runnable = this.runnable(tool);
    return runnable.local ? BUILTIN_MAX_REQUEST_BYTES : runnable.maxRequestBytes;
  }

  /**
   * A charge the database refused. Short of balance, the message gives what the call needed held
   * (`heldFor`: a tool with plans' lots leave a rest that is not the hold, so it keeps the plain
   * message; a built-in tool's, `cost`, is what it costs, since it held nothing). Over a spend limit, it gives the hold and what the key had left, read after the refusal
   * (the charge statement reports only why).
   */
  private async refusal(refused: Extract<ChargeOutcome, { ok: false }>, payer: Payer, held: bigint, heldFor: "call" | "llm" | "lots" | "cost"): Promise<GatewayError> {
    const { reason } = refused;
    // A tool with plans says what is left in its lots on a refusal too: the call drew nothing.
    const quota = refused.prepaidLeft === undefined ? undefined : { [QUOTA_HEADER]: String(refused.prepaidLeft) };
    const money = (micros: bigint) => `${CURRENCY_SYMBOL}${formatMoney(micros > 0n ? micros : 0n)}`;
    // What lots did not cover is not the hold: a call of a tool with plans keeps the plain message.
    if (reason === "insufficient_balance" && heldFor !== "lots") return new GatewayError(reason, insufficientBalanceHoldMessage(money(held), heldFor === "llm", heldFor === "cost"), quota);
    if (reason !== "spend_limit_reached") return new GatewayError(reason, undefined, quota);
    const [key] = await this.db
      .select({ spendLimit: apiKeys.spendLimit, spent: apiKeys.spent, spendLimitPeriod: apiKeys.spendLimitPeriod, periodSpent: apiKeys.periodSpent, periodStart: apiKeys.periodStart })
      .from(apiKeys)
      .where(eq(apiKeys.id, payer.apiKeyId));
    if (!key || key.spendLimit === null) return new GatewayError(reason, undefined, quota);
    const left = key.spendLimit - currentPeriodSpend(key, this.clock.now());
    return new GatewayError(reason, spendLimitHoldMessage(money(held), money(left), key.spendLimitPeriod, heldFor === "cost"), quota);
  }

  /** Checks the caller may make this call now; returns who pays. */
  async admit(call: GatewayCall): Promise<Payer> {
    if (!call.credential) throw new GatewayError("invalid_key", "send your API key as Authorization: Bearer <key>");
    const { keyHash } = call.credential;
    const now = this.clock.now();
    const cached = keyHash === null ? null : await this.keys.get(keyHash, now.getTime());
    if (!cached) throw new GatewayError("invalid_key");
    const auth = cached.found;
    call.trace?.identified(auth);
    const refusal = apiKeyRefusal(auth, call.clientIp, call.tool.id, now);
    if (refusal) throw new GatewayError(REFUSALS[refusal], refusal === "ip_not_allowed" ? ipNotAllowedMessage(call.clientIp) : undefined);
    if (call.tool.requiresApproval) {
      const [grant] = await this.db
        .select({ toolId: toolGrants.toolId })
        .from(toolGrants)
        .where(and(eq(toolGrants.userId, auth.user.id), eq(toolGrants.toolId, call.tool.id)));
      if (!grant) throw new GatewayError("tool_not_approved");
    }
    // Fails open when Redis is down: the spend limit and balance still hold in the database.
    const waitMs = await this.limiter.hit(
      { key: `calls:${auth.key.id}:${call.tool.id}`, limit: call.tool.rateLimitPerMinute, windowMs: 60_000, whenRedisDown: "local" },
      now.getTime(),
    );
    if (waitMs > 0) throw new GatewayError("rate_limited", undefined, { "retry-after": String(Math.ceil(waitMs / 1000)) });
    return {
      userId: auth.user.id,
      apiKeyId: auth.key.id,
      keyAllowsEarlyStart: auth.key.spendLimit === null && !cached.changedRecently,
      stopWhenPrepaidRunsOut: auth.key.whenPrepaidRunsOut === "stop",
    };
  }

  /**
   * How a call of a tool with plans, made at `at`, draws on the caller's lots; undefined for a tool
   * without. A free quota whose period's lot this process has seen made is not offered again, so
   * the charge skips making it (lots are never deleted, so the lot is still there).
   */
  private prepaidTerms(tool: Tool, payer: Payer, at: Date): PrepaidTerms | undefined {
    if (!hasPlans(tool)) return undefined;
    const quota = tool.freeQuota;
    const freeFrom = quota ? spendPeriodStart(quota.period, at)! : at;
    const made = quota !== undefined && this.freeLotsMade.has(freeLotKey(payer.userId, tool.id, freeFrom));
    return {
      price: tool.priceMicros,
      freeUnits: quota && !made ? quota.units : 0,
      freeFrom,
      freeUntil: quota ? spendPeriodEnd(quota.period, at)! : at,
      stopWhenOut: payer.stopWhenPrepaidRunsOut,
    };
  }

  /** Runs an admitted call and charges it if it succeeded. Throws GatewayError; any thrown call costs nothing. */
  async run(call: GatewayCall, payer: Payer): Promise<GatewayResult> {
    const tool = this.runnable(call.tool);
    const limit = this.maxRequestBytes(call.tool);
    checkDeclaredLength(call.request.headers["content-length"], limit);
    if (tool.local) {
      call.request.body = await readWhole(call.request.body, limit);
      return this.runThenCharge(call, call.request as ToolRequest, payer, tool);
    }
    if (tool.meter) {
      call.request.body = await readWhole(call.request.body, limit);
      const metered = tool.meter(call.request as UpstreamRequest & { body: Buffer });
      if ("answer" in metered) return { response: metered.answer, cost: 0n };
      call.request.body = metered.body;
      return this.chargeThenRun(call, payer, { ...tool, unitsBefore: metered.holdMicros, perUnit: true, run: metered.run }, metered);
    }
    call.request.body = limitedBody(call.request.body, limit);
    return this.chargeThenRun(call, payer, tool);
  }

  /**
   * Sends a charge to the group committer, counted by the balances seen until it is answered;
   * `mayStartEarly` asks whether its call may start upstream before it commits (decision 038).
   */
  private charge(item: ChargeItem, mayStartEarly: boolean): { holding: Promise<ChargeOutcome>; startsEarly: boolean } {
    const startsEarly = this.seenBalances.send(item.userId, item.amount, mayStartEarly);
    const holding = this.charges.submit(item).then(
      (outcome) => {
        this.seenBalances.answered(item.userId, item.amount, startsEarly, outcome);
        if (outcome.ok && item.prepaid && item.prepaid.freeUnits > 0) this.freeLotsMade.set(freeLotKey(item.userId, item.toolId, item.prepaid.freeFrom), true);
        return outcome;
      },
      (error: unknown) => {
        this.seenBalances.answered(item.userId, item.amount, startsEarly, undefined);
        throw error;
      },
    );
    return { holding, startsEarly };
  }

  /**
   * A built-in tool costs nothing outside this process to run, so it runs first and a success is
   * charged with its usage row complete, in one write; a call the balance no longer covers is
   * answered 402 and its result dropped.
   */
  private async runThenCharge(call: GatewayCall, request: ToolRequest, payer: Payer, tool: BuiltinTool): Promise<GatewayResult> {
    const units = tool.unitsBefore(request);
    const startedAt = this.clock.now();
    const started = performance.now();
    const response = await this.invoke(call, () => tool.run(request));
    if (call.callerGone()) throw new GatewayError("upstream_failed", ABORTED);
    if (!succeeded(response)) {
      if (upstreamFailed(response.status)) throw new GatewayError("upstream_failed");
      return { response, cost: 0n };
    }
    const usedUnits = this.usedUnits(call, response.units, units);
    const price = call.tool.priceMicros;
    const ended = { httpStatus: response.status, latencyMs: Math.round(performance.now() - started), at: this.clock.now() };
    const prepaid = this.prepaidTerms(call.tool, payer, startedAt);
    const { tiers } = call.tool;
    // A tool with tiers holds its dearest price and is priced by its place in the month once held.
    const item = { ...payer, toolId: call.tool.id, units: usedUnits, amount: price * BigInt(usedUnits), requestId: call.requestId, at: startedAt, ended: tiers ? undefined : ended, prepaid };
    const charged = await this.charge(item, false).holding;
    // A built-in tool held nothing, so what it needed is what it costs; one with tiers held its dearest price.
    if (!charged.ok) throw await this.refusal(charged, payer, item.amount, prepaid ? "lots" : tiers ? "call" : "cost");
    const balanceUnits = usedUnits - (charged.prepaidUnits ?? 0);
    const held = price * BigInt(balanceUnits);
    const settlement = { usageId: charged.usageId, ...payer, requestId: call.requestId, at: ended.at, units: usedUnits, httpStatus: ended.httpStatus, latencyMs: ended.latencyMs };
    const cost = tiers ? await this.priceTiered(call, tiers, { settlement, held, balanceUnits, startedAt }) : held;
    call.trace?.holdCommitted(cost, charged.prepaidDraws);
    if (call.trace) {
      call.trace.prepaidUsed = charged.prepaidUnits ?? 0;
      // A tool with tiers writes its units once its price stands (priceTiered).
      if (!tiers) call.trace.units = usedUnits;
    }
    return { response, cost, ...quotaRemaining(charged) };
  }

  /**
   * The most the call may cost (a hold: price × maxUnitsPerCall for a per-unit tool) is taken
   * durably before any of the upstream's answer reaches the caller; what it did not use is given
   * back when it ends, all of it if it fails. A streamed answer is settled when its body ends
   * (docs/decisions/013). The upstream is called while the hold commits when the balance this
   * process last saw covers it, and only after it otherwise (decision 038).
   */
  private async chargeThenRun(call: GatewayCall, payer: Payer, tool: UpstreamTool, metered?: Extract<MeteredCall, { run: unknown }>): Promise<GatewayResult> {
    const units = tool.unitsBefore;
    // A metered call's units are micro-units: its hold, then what its tokens cost.
    const price = metered ? 1n : call.tool.priceMicros;
    // What the call holds if no lot pays for it: the most it can take from the balance.
    const mostHeld = price * BigInt(units);
    const startedAt = this.clock.now();
    const started = performance.now();
    const prepaid = metered ? undefined : this.prepaidTerms(call.tool, payer, startedAt);
    const { holding, startsEarly } = this.charge(
      { ...payer, toolId: call.tool.id, units, amount: mostHeld, requestId: call.requestId, at: startedAt, prepaid },
      tool.startsEarly && payer.keyAllowsEarlyStart,
    );
    const early = startsEarly ? this.startBeforeHold(call, tool) : undefined;
    let charged: ChargeOutcome;
    try {
      charged = await holding;
    } catch (error) {
      early?.cancel();
      throw error;
    }
    if (!charged.ok) {
      early?.cancel();
      throw await this.refusal(charged, payer, mostHeld, prepaid ? "lots" : metered ? "llm" : "call");
    }
    // Units drawn from lots are paid already; the balance holds the rest.
    const drawn = charged.prepaidUnits ?? 0;
    const amount = price * BigInt(units - drawn);
    call.trace?.holdCommitted(amount, charged.prepaidDraws);
    const quota = quotaRemaining(charged);
    const release = this.holdTaken();

    const settlement = (finalStatus: RefundItem["finalStatus"], refund: bigint, finalUnits: number, httpStatus: number | null): RefundItem => ({
      usageId: charged.usageId,
      ...payer,
      amount: refund,
      requestId: call.requestId,
      at: this.clock.now(),
      finalStatus,
      units: finalUnits,
      httpStatus,
      latencyMs: Math.round(performance.now() - started),
    });
    const settle = (finalStatus: RefundItem["finalStatus"], refund: bigint, finalUnits: number, httpStatus: number | null) =>
      this.refunds
        .submit(settlement(finalStatus, refund, finalUnits, httpStatus))
        .then((settled) => this.refunded(settled, finalStatus, refund))
        .finally(release);
    /** Records a success charged `cost` for `usedUnits`; if that cannot be recorded, refunds the call and throws. */
    const recordSuccess = async (usedUnits: number, status: number): Promise<bigint> => {
      const balanceUnits = Math.max(0, usedUnits - drawn);
      const { tiers } = call.tool;
      if (tiers && !metered) {
        const cost = await this.priceTiered(call, tiers, { settlement: settlement("succeeded", 0n, usedUnits, status), held: amount, balanceUnits, startedAt }).finally(release);
        if (call.trace) call.trace.prepaidUsed = Math.min(usedUnits, drawn);
        return cost;
      }
      const cost = price * BigInt(balanceUnits);
      // An LLM call's tokens are written with its settlement, in one statement.
      const llm = metered?.charged(cost);
      return this.recordOrRefund(
        call,
        async () => {
          const stillPending = llm
            ? await settleLlmCall(this.db, settlement("succeeded", amount - cost, usedUnits, status), llmUsageItem(llm))
                .then((settled) => this.refunded(settled, "succeeded", amount - cost))
                .finally(release)
            : cost < amount || usedUnits < drawn
              ? await settle("succeeded", amount - cost, usedUnits, status)
              : await this.completions
                  .submit({ usageId: charged.usageId, httpStatus: status, latencyMs: Math.round(performance.now() - started), at: this.clock.now() })
                  .finally(release);
          if (stillPending && call.trace) {
            // An LLM call's units are micro-units (decision 051): its log shows its tokens, as billing details do.
            call.trace.units = llm ? llm.tokens.input + llm.tokens.output : usedUnits;
            call.trace.prepaidUsed = Math.min(usedUnits, drawn);
          }
          return { stillPending, cost };
        },
        () => settle("refunded", amount, units, status),
      );
    };

    let response: ToolResponse | StreamedToolResponse;
    try {
      response = await (early ? early.answer : this.invoke(call, () => tool.run(call.request)));
    } catch (error) {
      await settle("refunded", amount, units, null);
      throw error;
    }
    if (isStreamed(response) && response.body.destroyed) {
      // Broken while its hold committed, before anything was relayed: a failed call.
      this.log.warn({ tool: call.tool.id, requestId: call.requestId, err: response.body.errored }, "the tool's streamed answer broke before it could be relayed");
      await settle("refunded", amount, units, response.status);
      throw new GatewayError("upstream_failed");
    }
    if (call.callerGone()) {
      if (isStreamed(response)) this.discard(call, response, "the caller went away");
      await settle("refunded", amount, units, null);
      throw new GatewayError("upstream_failed", ABORTED);
    }
    if (!succeeded(response)) {
      await settle("refunded", amount, units, response.status);
      if (upstreamFailed(response.status)) throw new GatewayError("upstream_failed");
      return { response: response as ToolResponse, cost: 0n, ...(quota && { quotaRemaining: quota.quotaRemaining + drawn }) };
    }
    if (!isStreamed(response)) {
      const used = this.usedUnits(call, this.reportedUnits(call, tool, response.units), units);
      const cost = await recordSuccess(used, response.status);
      return { response, cost, ...(quota && { quotaRemaining: quota.quotaRemaining + drawn - Math.min(used, drawn) }) };
    }

    const streamed = response;
    let costKnown: (cost: bigint) => void = () => undefined;
    const cost = new Promise<bigint>((resolve) => (costKnown = resolve));
    const body = relay(streamed.body, streamed.observe, call.request.signal, async (end) => {
      const used = end.ok ? this.usedUnits(call, this.reportedUnits(call, tool, await streamed.units()), units) : await this.brokenStreamUnits(call, tool, streamed, end, units);
      if (!end.ok) {
        // The caller's stream breaks too, whatever the call costs.
        const whose = callerBrokeTheRequest(call.request) ? "the caller's request body broke, which ends the tool's answer" : "the tool's streamed answer broke";
        this.log.warn({ tool: call.tool.id, err: end.error, delivered: end.delivered, chargedUnits: used }, whose);
      }
      if (used === 0) {
        costKnown(0n);
        await settle("refunded", amount, units, streamed.status).catch((error: unknown) =>
          this.log.error({ err: error }, "could not refund the call; the sweeper will"),
        );
        return;
      }
      try {
        costKnown(await recordSuccess(used, streamed.status));
      } catch (error) {
        costKnown(0n);
        throw error;
      }
    });
    return { response: { ...streamed, body }, cost, ...quota };
  }

  /**
   * Records a call's success: `record` resolves whether its usage row was still pending, and what
   * it cost. One that ended after the abandoned-call window was refunded in full by the sweep, so
   * it is served free. A success that cannot be recorded is refunded now (`refund`) and the caller
   * gets an error: a row left pending is refunded by the sweeper, so its answer must not be sent.
   */
  private async recordOrRefund(call: GatewayCall, record: () => Promise<{ stillPending: boolean; cost: bigint }>, refund: () => Promise<unknown>): Promise<bigint> {
    try {
      const { stillPending, cost } = await record();
      if (stillPending) return cost;
      this.log.warn({ tool: call.tool.id, requestId: call.requestId }, "a call ended after the abandoned-call sweep refunded it; it is not charged");
      return 0n;
    } catch (error) {
      this.log.error({ err: error, tool: call.tool.id }, "could not record a call's success; refunding it");
      await refund().catch((refundError: unknown) => this.log.error({ err: refundError }, "could not refund the call; the sweeper will"));
      throw new GatewayError("internal_error");
    }
  }

  /**
   * Prices a held success of a tool with tiers by the units its user paid for in the month before
   * it (decision 058) and gives back what the hold did not cost, as `recordOrRefund` records any.
   */
  private async priceTiered(
    call: GatewayCall,
    tiers: Tiers,
    success: { settlement: Omit<RefundItem, "amount" | "finalStatus">; held: bigint; balanceUnits: number; startedAt: Date },
  ): Promise<bigint> {
    const { settlement, held, balanceUnits, startedAt } = success;
    return this.recordOrRefund(
      call,
      async () => {
        const priced = await settleTiered(this.db, { settlement, toolId: call.tool.id, tiers, held, balanceUnits, monthStart: spendPeriodStart("month", startedAt)! });
        const stillPending = this.refunded(priced.settled, "succeeded", held - priced.cost);
        if (stillPending && call.trace) call.trace.units = settlement.units;
        return { stillPending, cost: priced.cost };
      },
      () => this.refunds.submit({ ...settlement, amount: held, finalStatus: "refunded" }).then((settled) => this.refunded(settled, "refunded", held)),
    );
  }

  /**
   * Calls the upstream before the call's hold has committed; `cancel` aborts the call (or drops its
   * answer, if it came) when the hold is refused. Nothing of the answer reaches the caller before
   * the hold commits: the answer is awaited only after it.
   */
  private startBeforeHold(call: GatewayCall, tool: UpstreamTool): { answer: Promise<ToolResponse | StreamedToolResponse>; cancel(): void } {
    const refused = new AbortController();
    const request: UpstreamRequest = { ...call.request, signal: AbortSignal.any([call.request.signal, refused.signal]) };
    // Sent from setImmediate, after the group committer's flush (also from setImmediate, asked for
    // first) has sent the hold: the hold is the longer wait, so it leaves first.
    const answer = new Promise<void>((resolve) => setImmediate(resolve)).then(() => this.invoke(call, () => tool.run(request)));
    // Until the hold's outcome is known, a failure here is the hold's to report, not an unhandled rejection.
    answer.catch(() => undefined);
    return {
      answer,
      cancel: () => {
        refused.abort();
        answer.then(
          (dropped) => isStreamed(dropped) && this.discard(call, dropped, "its hold was refused"),
          (error: unknown) => this.log.debug({ err: error, tool: call.tool.id, requestId: call.requestId }, "a call whose hold was refused was cancelled upstream"),
        );
      },
    };
  }

  /** Drops a streamed answer nobody will read; undici reports a body destroyed before its end as an error. */
  private discard(call: GatewayCall, response: StreamedToolResponse, why: string): void {
    response.body.once("error", (error) => this.log.debug({ err: error, tool: call.tool.id, requestId: call.requestId }, `a streamed answer was dropped: ${why}`));
    response.body.destroy();
  }

  /** The tool's answer; a failure of the tool itself becomes the GatewayError the caller gets. */
  private async invoke<R extends ToolResponse | StreamedToolResponse>(call: GatewayCall, run: () => Promise<R>): Promise<R> {
    call.trace?.upstreamStarted();
    try {
      const answer = await run();
      call.trace?.upstreamAnswered(answer);
      return answer;
    } catch (error) {
      call.trace?.upstreamFailed(error instanceof UpstreamError ? error.fault : undefined);
      if (error instanceof GatewayError) throw error;
      if (error instanceof UpstreamError) {
        throw new GatewayError(error.kind === "timeout" ? "upstream_timeout" : "upstream_failed", undefined);
      }
      this.log.error({ err: error, tool: call.tool.id }, "tool crashed");
      throw new GatewayError("internal_error");
    }
  }

  /**
   * Units a broken stream is charged (0: refunded), by one rule (decision 013): nothing if none of
   * it reached the caller; the units the tool reported before it broke, if it did; all that were
   * held if the tool's total timeout cut it (it ran all the time a call may: as an answer that
   * ended without units, and a caller who asks for an answer longer than that gets none of it
   * free), if a timeout cut it while the caller was not reading (a slow reader does not get a
   * stream for free), or if the caller's own request body broke (left unfinished when the caller
   * hung up, or over `maxRequestBytes`): the exchange ends on the caller's side, so it is charged
   * as a caller who leaves, with the units unknown; otherwise nothing, as for any call the tool failed.
   */
  private async brokenStreamUnits(call: GatewayCall, tool: UpstreamTool, streamed: StreamedToolResponse, end: Extract<StreamEnd, { ok: false }>, held: number): Promise<number> {
    if (end.delivered === 0) return 0;
    const reported = tool.perUnit
      ? await streamed.units().catch((error: unknown) => {
          this.log.warn({ err: error, tool: call.tool.id }, "could not read the units of a broken stream; none are counted");
          return undefined;
        })
      : undefined;
    if (reported !== undefined) return this.usedUnits(call, reported, held);
    if (callerBrokeTheRequest(call.request)) return held;
    return cutByTotalTimeout(end.error) || (end.callerHeldBack && upstreamTimedOut(end.error)) ? held : 0;
  }

  /**
   * The units a per-unit tool reported for a call that ended well (undefined for a per-call tool).
   * None reported (no header or trailer, a body without the path, JSON that does not parse or
   * decompress) charges all that were held: said in the log, so the operator can see the tool is
   * not reporting.
   */
  private reportedUnits(call: GatewayCall, tool: UpstreamTool, reported: number | undefined): number | undefined {
    if (!tool.perUnit) return undefined;
    if (reported === undefined) {
      this.log.warn({ tool: call.tool.id, requestId: call.requestId }, "a per-unit tool reported no units for a call that ended well; it is charged all it held");
    }
    return reported;
  }

  /**
   * Units to charge: what the tool reports (all that were held if it reports none), never more
   * than were held, and never fewer than one: a served call is never free (decision 018).
   */
  private usedUnits(call: GatewayCall, reportedUnits: number | undefined, unitsBefore: number): number {
    const reported = reportedUnits ?? unitsBefore;
    if (reported > unitsBefore) {
      this.log.warn({ tool: call.tool.id, reported, charged: unitsBefore }, "tool reported more units than were charged");
    }
    return Math.max(MIN_UNITS, Math.min(reported, unitsBefore));
  }

  async drain(): Promise<void> {
    await Promise.all([this.charges.drain(), this.refunds.drain(), this.completions.drain()]);
    await Promise.all([...this.tools.values()].map((tool) => (tool.local ? undefined : tool.close())));
  }
}

/** The units left in the caller's lots after a call's draw, for a tool with plans. */
function quotaRemaining(charged: Extract<ChargeOutcome, { ok: true }>): { quotaRemaining: number } | undefined {
  return charged.prepaidLeft === undefined ? undefined : { quotaRemaining: charged.prepaidLeft };
}

/** Whether the caller's request body failed (the caller hung up before finishing it, or sent more than the tool accepts). */
function callerBrokeTheRequest(request: UpstreamRequest): boolean {
  return !Buffer.isBuffer(request.body) && request.body.errored !== null;
}
