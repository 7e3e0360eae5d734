import fs from "node:fs";
import { z } from "zod";
import { isMoney, parseMoney } from "#shared/money";

const TOOL_ID = /^[a-z0-9][a-z0-9-]{0,47}$/;
const ENV_REFERENCE = /\$\{([A-Z0-9_]+)\}/g;

const builtinHandler = z.object({ type: z.literal("builtin"), name: z.enum(["echo", "qrcode", "pinyin"]) });

const httpHandler = z.object({
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
});

/** The operator's words for a tool in Chinese; each one left out is shown in English. */
const chineseText = z.strictObject({
  name: z.string().min(1).max(80).optional(),
  description: z.string().min(1).max(1000).optional(),
  category: z.string().min(1).max(40).optional(),
  unit: z.string().min(1).max(40).optional(),
});

const toolEntry = z.object({
  id: z.string().regex(TOOL_ID, "must be lower-case letters, digits and dashes, starting with a letter or digit"),
  name: z.string().min(1).max(80),
  description: z.string().min(1).max(1000),
  category: z.string().min(1).max(40),
  price: z.string().refine((p) => isMoney(p) && parseMoney(p) >= 0n, "must be a non-negative decimal such as 0.01"),
  unit: z.string().min(1).max(40).optional(),
  /** For unit-priced upstreams: the units charged before the call runs; what goes unused is refunded. */
  maxUnitsPerCall: z.number().int().min(1).max(1_000_000_000).default(1),
  requiresApproval: z.boolean().default(false),
  rateLimitPerMinute: z.number().int().min(1).max(1_000_000).default(600),
  handler: z.discriminatedUnion("type", [builtinHandler, httpHandler]),
  translations: z.strictObject({ "zh-CN": chineseText.optional() }).default({}),
});

const catalogFile = z
  .object({ tools: z.array(toolEntry).min(1) })
  .superRefine((file, ctx) => {
    const seen = new Set<string>();
    file.tools.forEach((tool, i) => {
      if (tool.translations["zh-CN"]?.unit !== undefined && tool.unit === undefined) {
        ctx.addIssue({ code: "custom", path: ["tools", i, "translations", "zh-CN", "unit"], message: "a tool priced per call has no unit to translate" });
      }
      if (seen.has(tool.id)) ctx.addIssue({ code: "custom", path: ["tools", i, "id"], message: `duplicate tool id "${tool.id}"` });
      seen.add(tool.id);
    });
  });

export type ToolEntry = z.infer<typeof toolEntry>;
export type HttpHandlerConfig = z.infer<typeof httpHandler>;

export interface Tool extends Omit<ToolEntry, "price"> {
  /** Micro-units per call, or per unit when `unit` is set. */
  priceMicros: bigint;
  price: string;
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
    throw new CatalogError(file, parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`));
  }
  const problems: string[] = [];
  const tools = parsed.data.tools.map((tool, i) => {
    if (tool.handler.type === "http") {
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(tool.handler.headers)) {
        headers[name] = value.replace(ENV_REFERENCE, (_, variable: string) => {
          const resolved = env[variable];
          if (resolved === undefined) problems.push(`tools.${i}.handler.headers.${name}: environment variable ${variable} is not set`);
          return resolved ?? "";
        });
      }
      return { ...tool, handler: { ...tool.handler, headers }, priceMicros: parseMoney(tool.price) };
    }
    return { ...tool, priceMicros: parseMoney(tool.price) };
  });
  if (problems.length > 0) throw new CatalogError(file, problems);
  return tools;
}
