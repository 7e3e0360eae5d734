import fs from "node:fs";
import { z } from "zod";
import { isMoney, parseMoney } from "#shared/money";
import { TOKENIZERS } from "#shared/llm-prices";
import { dearestPrice, type Tiers } from "#shared/tiers";

const TOOL_ID = /^[a-z0-9][a-z0-9-]{0,47}$/;
const ENV_REFERENCE = /\$\{([A-Z0-9_]+)\}/g;

const builtinHandler = z.strictObject({ type: z.literal("builtin"), name: z.enum(["echo", "qrcode", "pinyin"]) });

/** Money per 1M tokens (a decimal such as 2.00): exact in micro-units, since a token may cost less than one (decision 051). */
const perMillionTokens = z.string().refine((p) => isMoney(p) && parseMoney(p) >= 0n, "must be a non-negative decimal per 1M tokens, such as 2.00");

/** A model an OpenAI-compatible tool serves, with its prices per 1M tokens read and written. */
const modelPrices = z
  .object({
    input: perMillionTokens,
    output: perMillionTokens,
    /** Input tokens the upstream reports as read from its cache (`cached_tokens`); the input price when unset. */
    cachedInput: perMillionTokens.optional(),
    /** The tokenizer Tollgate counts with when the upstream reports no usage (the closest to the model's own). */
    tokenizer: z.enum(TOKENIZERS).default("o200k_base"),
  })
  .strict();

export const DEFAULT_MAX_OUTPUT_TOKENS = 4096;
/** The output tokens an OpenAI-compatible tool holds for a request that sets no cap. */
export const defaultOutputCap = (config: Pick<HttpHandlerConfig, "defaultMaxOutputTokens">): number => config.defaultMaxOutputTokens ?? DEFAULT_MAX_OUTPUT_TOKENS;
const MODEL_ID = /^[A-Za-z0-9][A-Za-z0-9._:/@+-]{0,127}$/;

const httpHandler = z.strictObject({
  type: z.literal("http"),
  url: z.url({ message: "must be an absolute http(s) URL" }).refine((u) => /^https?:\/\//.test(u), "must be http or https"),
  method: z.enum(["GET", "POST", "PUT", "PATCH", "DELETE", "ANY"]).default("ANY"),
  /** Values may name environment variables as ${NAME}; the secret itself never sits in the file. */
  headers: z.record(z.string(), z.string()).default({}),
  /** Until the upstream's answer starts (its status and headers). */
  timeoutMs: z.number().int().min(100).max(120_000).default(10_000),
  connectTimeoutMs: z.number().int().min(100).max(60_000).default(5_000),
  /** Longest silence between two chunks of the answer's body. */
  idleTimeoutMs: z.number().int().min(100).max(300_000).default(30_000),
  /** The whole call, body included. Below the abandoned-call sweep's 10 minutes (gateway/abandoned-calls.ts). */
  totalTimeoutMs: z.number().int().min(100).max(300_000).default(120_000),
  /** Largest request body sent on to the upstream (413 beyond it). */
  maxRequestBytes: z.number().int().min(0).max(1024 * 1024 * 1024).default(10 * 1024 * 1024),
  /**
   * Whether a call may be sent upstream while its hold commits, when the balance this process saw
   * covers it (decision 038). Off: every call waits for its hold, so an upstream that bills the
   * operator per request never serves a call that is then refused.
   */
  startEarly: z.boolean().default(true),
  /** Dotted path of the units in a JSON answer, or in a server-sent event's JSON data, e.g. "usage.total_tokens". */
  unitsPath: z
    .string()
    .regex(/^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/, "must be dotted names such as usage.total_tokens")
    .optional(),
  /**
   * "openai": the upstream speaks the OpenAI API (Chat Completions, Responses, Embeddings), each
   * call priced by its model's input and output tokens (modules/gateway/handlers/openai.ts).
   */
  protocol: z.literal("openai").optional(),
  /** For an OpenAI-compatible tool: the models it serves, by the `model` a request names. */
  models: z.record(z.string().regex(MODEL_ID, "must be a model id such as gpt-4o-mini"), modelPrices).optional(),
  /**
   * For an OpenAI-compatible tool: other paths it passes on, each charged a price per call (e.g.
   * {"/audio/speech": "0.05"}); any other path is refused with 404.
   */
  pricedPaths: z
    .record(
      z.string().regex(/^(\/[A-Za-z0-9._~-]+)+$/, "must be a path such as /audio/speech"),
      z.string().refine((p) => isMoney(p) && parseMoney(p) > 0n, "must be a decimal above zero such as 0.05"),
    )
    .optional(),
  /** For an OpenAI-compatible tool: the output tokens held for a request that sets no max_tokens (DEFAULT_MAX_OUTPUT_TOKENS). */
  defaultMaxOutputTokens: z.number().int().min(1).max(10_000_000).optional(),
});

/** The operator's words for a tool in Chinese; each one left out is shown in English. */
const chineseText = z.strictObject({
  name: z.string().min(1).max(80).optional(),
  description: z.string().min(1).max(1000).optional(),
  category: z.string().min(1).max(40).optional(),
  unit: z.string().min(1).max(40).optional(),
});

/** Units a user may use free in each natural Beijing day or month (not counted from first use). */
const freeQuota = z.strictObject({
  units: z.number().int().min(1).max(1_000_000_000),
  period: z.enum(["day", "month"]),
});

const PACKAGE_ID = /^[a-z0-9][a-z0-9-]{0,47}$/;

/** A call package a user buys from the balance: `units` of this tool, usable for `validDays` days from purchase. */
const callPackage = z.strictObject({
  id: z.string().regex(PACKAGE_ID, "must be lower-case letters, digits and dashes, starting with a letter or digit"),
  name: z.string().min(1).max(80),
  units: z.number().int().min(1).max(1_000_000_000),
  price: z.string().refine((p) => isMoney(p) && parseMoney(p) > 0n, "must be a decimal above zero such as 9.90"),
  validDays: z.number().int().min(1).max(3660),
  translations: z.strictObject({ "zh-CN": z.strictObject({ name: z.string().min(1).max(80) }).optional() }).default({}),
});

/** Prices by the units a user paid for from the balance in the current Beijing month (docs/decisions/058). */
const tiers = z.strictObject({
  mode: z.enum(["graduated", "volume"]),
  bands: z
    .array(
      z.strictObject({
        upTo: z.number().int().min(1).max(1_000_000_000_000).nullable(),
        price: z.string().refine((p) => isMoney(p) && parseMoney(p) >= 0n, "must be a non-negative decimal with at most 6 decimals, such as 0.002"),
      }),
    )
    .min(1)
    .max(20),
});

/**
 * Every object of the file is strict: a misspelt field (`requireApproval`, `maxUnitPerCall`, a
 * handler's `unitPath`) is refused, naming it, rather than ignored for its default, which would
 * open a tool to all or charge every call its whole hold.
 */
const toolEntry = z.strictObject({
  id: z.string().regex(TOOL_ID, "must be lower-case letters, digits and dashes, starting with a letter or digit"),
  name: z.string().min(1).max(80),
  description: z.string().min(1).max(1000),
  category: z.string().min(1).max(40),
  /** Per call, or per unit; absent for an OpenAI-compatible tool, priced per model instead. */
  price: z.string().refine((p) => isMoney(p) && parseMoney(p) >= 0n, "must be a non-negative decimal such as 0.01").optional(),
  unit: z.string().min(1).max(40).optional(),
  /** For unit-priced upstreams: the units charged before the call runs; what goes unused is refunded. */
  maxUnitsPerCall: z.number().int().min(1).max(1_000_000_000).default(1),
  requiresApproval: z.boolean().default(false),
  rateLimitPerMinute: z.number().int().min(1).max(1_000_000).default(600),
  handler: z.discriminatedUnion("type", [builtinHandler, httpHandler]),
  translations: z.strictObject({ "zh-CN": chineseText.optional() }).default({}),
  freeQuota: freeQuota.optional(),
  packages: z.array(callPackage).max(20).default([]),
  /** Instead of `price`: volume tiers, priced by the units of the month. */
  tiers: tiers.optional(),
  /** The request the tool's docs show, which the console's "Try it" starts from: a JSON body may be given as JSON. */
  example: z
    .strictObject({
      path: z.string().max(2048).regex(/^(\/[^?#\s]*)?(\?[^#\s]*)?$/, "must be empty or start with / or ?").default(""),
      contentType: z.string().min(1).max(200).default("application/json"),
      body: z.union([z.string(), z.record(z.string(), z.unknown())]).transform((body) => (typeof body === "string" ? body : JSON.stringify(body, null, 2))),
    })
    .optional(),
});

const catalogFile = z
  .strictObject({ tools: z.array(toolEntry).min(1) })
  .superRefine((file, ctx) => {
    const seen = new Set<string>();
    file.tools.forEach((tool, i) => {
      if (tool.translations["zh-CN"]?.unit !== undefined && tool.unit === undefined) {
        ctx.addIssue({ code: "custom", path: ["tools", i, "translations", "zh-CN", "unit"], message: "a tool priced per call has no unit to translate" });
      }
      for (const [field, message] of [...pricingProblems(tool), ...planProblems(tool), ...tierProblems(tool)]) ctx.addIssue({ code: "custom", path: ["tools", i, ...field], message });
      if (seen.has(tool.id)) ctx.addIssue({ code: "custom", path: ["tools", i, "id"], message: `duplicate tool id "${tool.id}"` });
      seen.add(tool.id);
    });
  });

/** How a tool is priced must be said one way: per call or unit (`price`), or per model (`protocol: "openai"` and `models`). */
function pricingProblems(tool: z.infer<typeof toolEntry>): [(string | number)[], string][] {
  const handler = tool.handler.type === "http" ? tool.handler : undefined;
  if (handler?.protocol !== "openai") {
    const problems: [(string | number)[], string][] = [];
    if (tool.price === undefined && !tool.tiers) problems.push([["price"], "is required (a decimal such as 0.01), or tiers"]);
    if (tool.price !== undefined && tool.tiers) problems.push([["price"], "a tool is priced by its tiers or by one price: remove price, or tiers"]);
    if (handler?.models) problems.push([["handler", "models"], 'are priced only on a tool with "protocol": "openai"']);
    if (handler?.pricedPaths) problems.push([["handler", "pricedPaths"], 'are priced only on a tool with "protocol": "openai"']);
    return problems;
  }
  const problems: [(string | number)[], string][] = [];
  if (tool.price !== undefined) problems.push([["price"], "an OpenAI-compatible tool is priced per model in handler.models: remove price"]);
  if (tool.unit !== undefined) problems.push([["unit"], "an OpenAI-compatible tool is priced per token: remove unit"]);
  if (handler.unitsPath !== undefined) problems.push([["handler", "unitsPath"], "an OpenAI-compatible tool reads its usage itself: remove unitsPath"]);
  if (!handler.models || Object.keys(handler.models).length === 0) problems.push([["handler", "models"], "list at least one model with its input and output prices"]);
  for (const path of Object.keys(handler.pricedPaths ?? {})) {
    if (/^\/(chat\/completions|responses|embeddings|models)(\/|$)/.test(path)) problems.push([["handler", "pricedPaths", path], "is an OpenAI route this tool prices per model: remove it"]);
  }
  return problems;
}

/** Bands rise in units and end with one without end (`upTo: null`); an LLM's tokens are priced per model instead. */
function tierProblems(tool: z.infer<typeof toolEntry>): [(string | number)[], string][] {
  if (!tool.tiers) return [];
  if (tool.handler.type === "http" && tool.handler.protocol === "openai") {
    return [[["tiers"], "an OpenAI-compatible tool is priced per token of each model: it has no tiers"]];
  }
  const problems: [(string | number)[], string][] = [];
  const { bands } = tool.tiers;
  bands.forEach((band, j) => {
    const last = j === bands.length - 1;
    if (last && band.upTo !== null) problems.push([["tiers", "bands", j, "upTo"], "the last band has no end: set upTo to null"]);
    if (!last && band.upTo === null) problems.push([["tiers", "bands", j, "upTo"], "only the last band is without end: give this one an upTo"]);
    const below = j > 0 ? bands[j - 1]!.upTo : 0;
    if (band.upTo !== null && below !== null && band.upTo <= below) problems.push([["tiers", "bands", j, "upTo"], `must be above the band before's upTo (${below})`]);
  });
  return problems;
}

/** Free quotas and packages count a tool's own units: an OpenAI-compatible tool's are tokens of many prices, so it has neither. */
function planProblems(tool: z.infer<typeof toolEntry>): [(string | number)[], string][] {
  const problems: [(string | number)[], string][] = [];
  if (tool.handler.type === "http" && tool.handler.protocol === "openai") {
    if (tool.freeQuota) problems.push([["freeQuota"], "an OpenAI-compatible tool is priced per token of each model: it has no free quota of units"]);
    if (tool.packages.length > 0) problems.push([["packages"], "an OpenAI-compatible tool is priced per token of each model: it has no packages of units"]);
  }
  const seen = new Set<string>();
  tool.packages.forEach((pkg, j) => {
    if (seen.has(pkg.id)) problems.push([["packages", j, "id"], `duplicate package id "${pkg.id}"`]);
    seen.add(pkg.id);
  });
  return problems;
}

export type ToolEntry = z.infer<typeof toolEntry>;
export type CallPackage = z.infer<typeof callPackage>;
export type FreeQuota = z.infer<typeof freeQuota>;
export type HttpHandlerConfig = z.infer<typeof httpHandler>;

export interface Tool extends Omit<ToolEntry, "price" | "tiers"> {
  /**
   * Micro-units per call, or per unit when `unit` is set (0 for an OpenAI-compatible tool, priced
   * per model); for a tool with tiers, its dearest band's, which a call holds until it is priced.
   */
  priceMicros: bigint;
  /** The price per call or unit; for a tool with tiers, its first band's. */
  price: string;
  tiers?: Tiers;
}

function priced(tool: ToolEntry): Pick<Tool, "price" | "priceMicros"> & { tiers: Tiers | undefined } {
  if (!tool.tiers) return { price: tool.price ?? "0", priceMicros: parseMoney(tool.price ?? "0"), tiers: undefined };
  const tiers: Tiers = { mode: tool.tiers.mode, bands: tool.tiers.bands.map((band) => ({ upTo: band.upTo, price: parseMoney(band.price) })) };
  return { price: tool.tiers.bands[0]!.price, priceMicros: dearestPrice(tiers), tiers };
}

/** What a field left out says: that it is required, and what it takes, rather than zod's "received undefined". */
function issueMessage(issue: z.core.$ZodIssue): string {
  if (issue.code === "invalid_type" && /received undefined$/.test(issue.message)) return `is required (${/^[aeiou]/.test(issue.expected) ? "an" : "a"} ${issue.expected})`;
  return issue.message;
}

/**
 * Which tool a problem at `path` (`tools.12.price`) is in, by its id, when the entry has one: an
 * operator finds "ocr" in a long catalog, not its thirteenth entry.
 */
function ofTool(raw: unknown, path: readonly PropertyKey[]): string {
  if (path[0] !== "tools" || typeof path[1] !== "number") return "";
  const entry: unknown = (raw as { tools?: unknown[] }).tools?.[path[1]];
  const id = entry && typeof entry === "object" ? (entry as { id?: unknown }).id : undefined;
  return typeof id === "string" && id.trim() ? ` (tool ${JSON.stringify(id)})` : "";
}

export class CatalogError extends Error {
  constructor(file: string, problems: string[]) {
    super(`Invalid tool catalog ${file}:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
    this.name = "CatalogError";
  }
}

/** Reads and validates the operator's catalog; `${VAR}` in upstream headers must be set in `env`. */
export function loadCatalog(file: string, env: Record<string, string | undefined> = process.env): Tool[] {
  let raw: unknown;
  try {
    raw = JSON.parse(fs.readFileSync(file, "utf8"));
  } catch (error) {
    throw new CatalogError(file, [(error as Error).message]);
  }
  const parsed = catalogFile.safeParse(raw);
  if (!parsed.success) {
    throw new CatalogError(file, parsed.error.issues.map((i) => `${i.path.length > 0 ? i.path.join(".") : "the file"}: ${issueMessage(i)}${ofTool(raw, i.path)}`));
  }
  const problems: string[] = [];
  const tools = parsed.data.tools.map((tool, i) => {
    if (tool.handler.type === "http") {
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(tool.handler.headers)) {
        headers[name] = value.replace(ENV_REFERENCE, (_, variable: string) => {
          const resolved = env[variable];
          if (resolved === undefined) problems.push(`tools.${i}.handler.headers.${name}: environment variable ${variable} is not set (tool "${tool.id}")`);
          return resolved ?? "";
        });
      }
      return { ...tool, handler: { ...tool.handler, headers }, ...priced(tool) };
    }
    return { ...tool, ...priced(tool) };
  });
  if (problems.length > 0) throw new CatalogError(file, problems);
  return tools;
}
