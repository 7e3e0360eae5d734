import { maskApiKey, type ApiKey, type ApiKeyStatus } from "#shared/api-keys";
import { formatMoney } from "#shared/money";
import { spendPeriodEnd, spendPeriodStart } from "#shared/spend-period";
import type { apiKeys } from "../../db/schema/index";

export type ApiKeyRow = typeof apiKeys.$inferSelect;

export function apiKeyStatus(row: Pick<ApiKeyRow, "disabledAt" | "expiresAt">, now: Date): ApiKeyStatus {
  if (row.disabledAt) return "disabled";
  if (row.expiresAt && row.expiresAt.getTime() <= now.getTime()) return "expired";
  return "active";
}

/** What the key's spend limit is checked against now: its lifetime spend, or the current period's. */
export function currentPeriodSpend(row: Pick<ApiKeyRow, "spent" | "spendLimitPeriod" | "periodSpent" | "periodStart">, now: Date): bigint {
  if (row.spendLimitPeriod === "lifetime") return row.spent;
  return row.periodStart?.getTime() === spendPeriodStart(row.spendLimitPeriod, now)!.getTime() ? row.periodSpent : 0n;
}

/** A key as the console shows it: never the secret, never the hash. */
export function toApiKey(row: ApiKeyRow, now: Date): ApiKey {
  return {
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    last4: row.last4,
    maskedKey: maskApiKey(row.prefix, row.last4),
    status: apiKeyStatus(row, now),
    createdAt: row.createdAt.toISOString(),
    lastUsedAt: row.lastUsedAt?.toISOString() ?? null,
    expiresAt: row.expiresAt?.toISOString() ?? null,
    spendLimit: row.spendLimit === null ? null : formatMoney(row.spendLimit),
    spent: formatMoney(row.spent),
    spendLimitPeriod: row.spendLimitPeriod,
    periodSpent: formatMoney(currentPeriodSpend(row, now)),
    periodEndsAt: spendPeriodEnd(row.spendLimitPeriod, now)?.toISOString() ?? null,
    allowedTools: row.allowedTools,
    ipAllowlist: row.ipAllowlist,
    whenPrepaidRunsOut: row.whenPrepaidRunsOut,
  };
}
