import { and, eq } from "drizzle-orm";
import type { FastifyBaseLogger } from "fastify";
import { formatMoney } from "../../../shared/money";
import type { Clock } from "../../clock";
import type { Db } from "../../db/client";
import { toolGrants } from "../../db/schema/index";
import { GroupCommitter } from "../../lib/group-commit";
import { WindowLimiter } from "../../lib/window-limiter";
import type { Tool } from "../catalog/catalog-file";
import { apiKeyRefusal, type ApiKeyRefusal } from "../keys/authenticate";
import { ApiKeyCache } from "./key-cache";
import { GatewayError } from "./gateway-error";
import { runnableTool, type RunnableTool } from "./handlers/index";
import { UpstreamError, type ToolRequest, type ToolResponse } from "./handlers/types";
import { chargeBatch, completeBatch, refundBatch, type ChargeItem, type ChargeOutcome, type CompletionItem, type RefundItem } from "./metering";

const REFUSALS: Record<ApiKeyRefusal, GatewayError["code"]> = {
  unknown: "invalid_key",
  disabled: "invalid_key",
  expired: "invalid_key",
  ip_not_allowed: "ip_not_allowed",
  tool_not_allowed: "tool_not_allowed",
  spend_limit_reached: "spend_limit_reached",
};

export interface GatewayCall {
  tool: Tool;
  rawKey: string | null;
  clientIp: string;
  requestId: string;
  request: ToolRequest;
}

export interface GatewayResult {
  response: ToolResponse;
  /** Micro-units the call cost in the end. */
  cost: bigint;
}

/**
 * The metered call: key, access and rate checks, the charge (batched with concurrent calls into
 * one transaction, durable before the tool runs), the tool, then the refund of a call that failed.
 * See docs/decisions for why calls are charged before they run.
 */
export class Gateway {
  private readonly charges: GroupCommitter<ChargeItem, ChargeOutcome>;
  private readonly refunds: GroupCommitter<RefundItem, void>;
  private readonly completions: GroupCommitter<CompletionItem, void>;
  private readonly limiter = new WindowLimiter(60_000);
  private readonly tools = new Map<string, RunnableTool>();
  readonly keys: ApiKeyCache;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly log: FastifyBaseLogger,
    options: { concurrency: number },
  ) {
    this.keys = new ApiKeyCache(db);
    this.charges = new GroupCommitter((items) => chargeBatch(db, items), { maxBatch: 500, concurrency: options.concurrency });
    this.refunds = new GroupCommitter((items) => refundBatch(db, items), { maxBatch: 500, concurrency: 1 });
    this.completions = new GroupCommitter((items) => completeBatch(db, items), { maxBatch: 1000, concurrency: 1 });
  }

  private runnable(tool: Tool): RunnableTool {
    let runnable = this.tools.get(tool.id);
    if (!runnable) {
      runnable = runnableTool(tool);
      this.tools.set(tool.id, runnable);
    }
    return runnable;
  }

  /** Checks the caller may make this call now; returns who pays. */
  async admit(call: GatewayCall): Promise<{ userId: number; apiKeyId: number }> {
    if (!call.rawKey) throw new GatewayError("invalid_key", "send your API key as Authorization: Bearer <key>");
    const now = this.clock.now();
    const auth = await this.keys.get(call.rawKey, now.getTime());
    if (!auth) throw new GatewayError("invalid_key");
    const refusal = apiKeyRefusal(auth, call.clientIp, call.tool.id, now);
    if (refusal) throw new GatewayError(REFUSALS[refusal]);
    if (call.tool.requiresApproval) {
      const [grant] = await this.db
        .select({ toolId: toolGrants.toolId })
        .from(toolGrants)
        .where(and(eq(toolGrants.userId, auth.user.id), eq(toolGrants.toolId, call.tool.id)));
      if (!grant) throw new GatewayError("tool_not_approved");
    }
    const waitMs = this.limiter.hit(`${auth.key.id}:${call.tool.id}`, call.tool.rateLimitPerMinute, now.getTime());
    if (waitMs > 0) throw new GatewayError("rate_limited", undefined, { "retry-after": String(Math.ceil(waitMs / 1000)) });
    return { userId: auth.user.id, apiKeyId: auth.key.id };
  }

  /** Charges, runs and settles an admitted call. Throws GatewayError; any thrown call costs nothing. */
  async run(call: GatewayCall, payer: { userId: number; apiKeyId: number }): Promise<GatewayResult> {
    const tool = this.runnable(call.tool);
    const units = tool.unitsBefore(call.request);
    const amount = call.tool.priceMicros * BigInt(units);
    const startedAt = this.clock.now();
    const charged = await this.charges.submit({ ...payer, toolId: call.tool.id, units, amount, requestId: call.requestId, at: startedAt });
    if (!charged.ok) throw new GatewayError(charged.reason);

    const started = performance.now();
    const settle = (finalStatus: RefundItem["finalStatus"], refund: bigint, finalUnits: number, httpStatus: number | null) =>
      this.refunds.submit({
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

    let response: ToolResponse;
    try {
      response = await tool.run(call.request);
    } catch (error) {
      await settle("refunded", amount, units, null);
      if (error instanceof UpstreamError) {
        throw new GatewayError(error.kind === "timeout" ? "upstream_timeout" : "upstream_failed", undefined);
      }
      this.log.error({ err: error, tool: call.tool.id }, "tool crashed");
      throw new GatewayError("internal_error");
    }
    if (call.request.signal.aborted) {
      await settle("refunded", amount, units, null);
      throw new GatewayError("upstream_failed", "the call was aborted by the caller; it was not charged");
    }
    if (response.status < 200 || response.status >= 300) {
      await settle("refunded", amount, units, response.status);
      if (response.status >= 500) throw new GatewayError("upstream_failed");
      return { response, cost: 0n };
    }
    const usedUnits = Math.min(response.units ?? units, units);
    if ((response.units ?? units) > units) {
      this.log.warn({ tool: call.tool.id, reported: response.units, charged: units }, "tool reported more units than were charged");
    }
    const cost = call.tool.priceMicros * BigInt(usedUnits);
    if (cost < amount) {
      await settle("succeeded", amount - cost, usedUnits, response.status);
    } else {
      // Money is settled; how the call ended is bookkeeping and need not hold up the answer.
      this.completions
        .submit({ usageId: charged.usageId, httpStatus: response.status, latencyMs: Math.round(performance.now() - started), at: this.clock.now() })
        .catch((error: unknown) => this.log.error({ err: error }, "could not record a call's completion"));
    }
    return { response, cost };
  }

  async drain(): Promise<void> {
    await Promise.all([this.charges.drain(), this.refunds.drain(), this.completions.drain()]);
  }
}

export function costHeader(cost: bigint): string {
  return formatMoney(cost);
}
