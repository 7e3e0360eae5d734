import { z } from "zod";
import { userText } from "./text";
import { MAX_AMOUNT, moneyProblem, parseMoney } from "./money";
import { SPEND_LIMIT_PERIODS } from "./spend-period";
import { AFTER_STORABLE_TIME } from "./storable-time";

/** A key is `tg_` plus 32 random bytes in base64url (43 characters). */
export const API_KEY_PREFIX = "tg_";
export const API_KEY_RANDOM_LENGTH = 43;
export const API_KEY_PATTERN = /^tg_[A-Za-z0-9_-]{43}$/;
export const API_KEY_NAME_MAX = 64;
export const API_KEY_LIST_MAX = 100;
export const TOOL_ID_PATTERN = /^[a-z0-9][a-z0-9_-]{0,63}$/;

export const API_KEY_STATUSES = ["active", "disabled", "expired"] as const;
export type ApiKeyStatus = (typeof API_KEY_STATUSES)[number];

/** What the form and the server say about a value; the web app translates the problem names. */
export type ApiKeyNameProblem = "required" | "tooLong";
export type SpendLimitProblem = "malformed" | "notPositive" | "tooLarge";
export type IpRuleProblem = "malformed";
export type ExpiryProblem = "malformed" | "past" | "tooLate";

export const API_KEY_MESSAGES = {
  nameRequired: "name is required",
  nameTooLong: `name must be at most ${API_KEY_NAME_MAX} characters`,
  spendLimitMalformed: "spend limit must be an amount such as 100 or 12.50 (at most 6 decimals)",
  spendLimitNotPositive: "spend limit must be greater than 0",
  spendLimitTooLarge: `spend limit must be no more than ${MAX_AMOUNT}`,
  ipRuleMalformed: "must be an IPv4 or IPv6 address or a CIDR range such as 10.0.0.0/8",
  expiryMalformed: "expiry must be a date and time",
  expiryPast: "expiry must be in the future",
  expiryTooLate: "expiry must be before the year 10000",
  toolMalformed: "tool ids are lower-case letters, digits, '-' and '_'",
} as const;

export function apiKeyNameProblem(name: string): ApiKeyNameProblem | null {
  if (name.trim() === "") return "required";
  if (name.trim().length > API_KEY_NAME_MAX) return "tooLong";
  return null;
}

/**
 * A negative amount is well formed, just not greater than 0: "-1" gets the message that says so, as
 * does a negative one too large to hold; a positive one too large gets the largest accepted.
 */
export function spendLimitProblem(input: string): SpendLimitProblem | null {
  const problem = moneyProblem(input);
  if (problem === "malformed") return "malformed";
  if (problem === "outOfRange") return input.trim().startsWith("-") ? "notPositive" : "tooLarge";
  return parseMoney(input) > 0n ? null : "notPositive";
}

const ipRule = z.union([z.ipv4(), z.ipv6(), z.cidrv4(), z.cidrv6()]);

/** IPv4 or IPv6 address, or a CIDR range of either. */
export function isIpRule(input: string): boolean {
  return ipRule.safeParse(input.trim()).success;
}

export function expiryProblem(iso: string, now: Date): ExpiryProblem | null {
  const at = Date.parse(iso);
  if (Number.isNaN(at)) return "malformed";
  if (at >= AFTER_STORABLE_TIME) return "tooLate";
  return at > now.getTime() ? null : "past";
}

/** `tg_…wxyz`: enough to recognise a key, never enough to use it. */
export function maskApiKey(prefix: string, last4: string): string {
  return `${prefix}…${last4}`;
}

const nameSchema = userText()
  .trim()
  .min(1, API_KEY_MESSAGES.nameRequired)
  .max(API_KEY_NAME_MAX, API_KEY_MESSAGES.nameTooLong)
  .describe(`A name for the key, 1 to ${API_KEY_NAME_MAX} characters`);

const spendLimitSchema = z
  .string()
  .superRefine((s, ctx) => {
    const problem = spendLimitProblem(s);
    if (problem === "malformed") ctx.addIssue({ code: "custom", message: API_KEY_MESSAGES.spendLimitMalformed });
    if (problem === "notPositive") ctx.addIssue({ code: "custom", message: API_KEY_MESSAGES.spendLimitNotPositive });
    if (problem === "tooLarge") ctx.addIssue({ code: "custom", message: API_KEY_MESSAGES.spendLimitTooLarge });
  })
  .transform((s) => s.trim())
  .nullable()
  .describe("Most the key may spend in its spend-limit period, as a decimal string in the site currency; null for no limit");

const spendLimitPeriodSchema = z
  .enum(SPEND_LIMIT_PERIODS)
  .describe("What the spend limit counts: the key's lifetime, or each day or month in Beijing time (it resets at the start of each)");

const expiresAtSchema = z.iso
  .datetime({ offset: true, message: API_KEY_MESSAGES.expiryMalformed })
  .nullable()
  .describe("ISO 8601 time after which the key stops working; null for never");

const allowedToolsSchema = z
  .array(userText().regex(TOOL_ID_PATTERN, API_KEY_MESSAGES.toolMalformed))
  .max(API_KEY_LIST_MAX)
  .transform((tools) => [...new Set(tools)])
  .describe("Tool ids the key may call; empty for every tool the user may use");

const ipAllowlistSchema = z
  .array(userText().trim().refine(isIpRule, API_KEY_MESSAGES.ipRuleMalformed))
  .max(API_KEY_LIST_MAX)
  .transform((rules) => [...new Set(rules)])
  .describe("Addresses and CIDR ranges the key may be used from; empty for anywhere");

export const WHEN_PREPAID_RUNS_OUT = ["balance", "stop"] as const;
export type WhenPrepaidRunsOut = (typeof WHEN_PREPAID_RUNS_OUT)[number];

const whenPrepaidRunsOutSchema = z
  .enum(WHEN_PREPAID_RUNS_OUT)
  .describe("When the free quota and packages of a tool that has them do not cover a call: 'balance' pays the rest from the balance; 'stop' refuses the call (402 prepaid_exhausted). A tool with neither is paid from the balance either way");

/** POST /api/v1/console/keys */
export const createApiKeyBody = z.strictObject({
  name: nameSchema,
  expiresAt: expiresAtSchema.optional(),
  spendLimit: spendLimitSchema.optional(),
  spendLimitPeriod: spendLimitPeriodSchema.optional(),
  allowedTools: allowedToolsSchema.optional(),
  ipAllowlist: ipAllowlistSchema.optional(),
  whenPrepaidRunsOut: whenPrepaidRunsOutSchema.optional(),
});
export type CreateApiKeyInput = z.input<typeof createApiKeyBody>;

/** PATCH /api/v1/console/keys/:id — only the fields present change. */
export const updateApiKeyBody = z.strictObject({
  name: nameSchema.optional(),
  enabled: z.boolean().optional().describe("false disables the key at once; true enables it again"),
  expiresAt: expiresAtSchema.optional(),
  spendLimit: spendLimitSchema.optional(),
  spendLimitPeriod: spendLimitPeriodSchema.optional(),
  allowedTools: allowedToolsSchema.optional(),
  ipAllowlist: ipAllowlistSchema.optional(),
  whenPrepaidRunsOut: whenPrepaidRunsOutSchema.optional(),
});
export type UpdateApiKeyInput = z.input<typeof updateApiKeyBody>;

/** A key's id in a path: its decimal digits only (a coerced number would take 0x1, 1e0 or " 1" for key 1). */
export const apiKeyIdParams = z.object({
  id: z
    .string()
    .regex(/^[0-9]+$/, "must be a whole number, in digits")
    .refine((digits) => digits.replace(/^0+/, "").length <= 15, "is larger than any key's id")
    .transform(Number)
    .pipe(z.number().positive()),
});

export const apiKeySchema = z.object({
  id: z.number().int(),
  name: z.string(),
  prefix: z.string(),
  last4: z.string(),
  maskedKey: z.string().describe("prefix…last4"),
  status: z.enum(API_KEY_STATUSES),
  createdAt: z.string(),
  lastUsedAt: z.string().nullable(),
  expiresAt: z.string().nullable(),
  spendLimit: z.string().nullable(),
  spent: z.string().describe("Spent so far through this key over its lifetime, as a decimal string"),
  spendLimitPeriod: spendLimitPeriodSchema,
  periodSpent: z.string().describe("Spent in the current period (the lifetime for a lifetime limit): what the limit is checked against"),
  periodEndsAt: z.string().nullable().describe("When the current period ends and the spend limit starts again at 0; null for a lifetime limit"),
  allowedTools: z.array(z.string()),
  ipAllowlist: z.array(z.string()),
  whenPrepaidRunsOut: whenPrepaidRunsOutSchema,
});
export type ApiKey = z.infer<typeof apiKeySchema>;

export const apiKeyListSchema = z.object({
  keys: z.array(apiKeySchema),
  max: z.number().int().describe("How many keys a user may have"),
});
export type ApiKeyList = z.infer<typeof apiKeyListSchema>;

export const createdApiKeySchema = z.object({
  key: apiKeySchema,
  secret: z.string().describe("The full key. It is shown this once and cannot be retrieved again"),
});
export type CreatedApiKey = z.infer<typeof createdApiKeySchema>;

export const deletedApiKeySchema = z.object({ id: z.number().int(), deleted: z.literal(true) });
