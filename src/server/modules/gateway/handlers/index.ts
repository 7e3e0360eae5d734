import type { FastifyBaseLogger } from "fastify";
import type { Tool } from "../../catalog/catalog-file";
import { echo } from "./echo";
import { pinyin, pinyinUnits } from "./pinyin";
import { qrcode } from "./qrcode";
import type { MeteredCall, ToolHandler, ToolRequest, UpstreamHandler, UpstreamRequest } from "./types";

/** Runs in this process and reaches nothing outside it, so it may run before it is paid for; reads its whole body. */
export interface BuiltinTool {
  local: true;
  run: ToolHandler;
  /** Units the call will use at most, known before it runs. */
  unitsBefore(request: ToolRequest): number;
}

/** An operator's HTTP upstream: paid for (held) before it is called, its body streamed. */
export interface UpstreamTool {
  local: false;
  run: UpstreamHandler;
  /** The units held before the call: what it may use at most. */
  unitsBefore: number;
  /** Priced per unit: the units the upstream reports are charged (else the call's price is fixed). */
  perUnit: boolean;
  maxRequestBytes: number;
  /** May be called while its hold commits (the catalog's `startEarly`). */
  startsEarly: boolean;
  /** Closes its keep-alive connections. */
  close(): Promise<void>;
  /** For a tool priced by what each call asks (`protocol: "openai"`): reads the whole request and sizes its hold. */
  meter?: (request: UpstreamRequest & { body: Buffer }) => MeteredCall;
}

export type RunnableTool = BuiltinTool | UpstreamTool;

const BUILTINS: Record<"echo" | "qrcode" | "pinyin", BuiltinTool> = {
  echo: { run: echo, unitsBefore: () => 1, local: true },
  qrcode: { run: qrcode, unitsBefore: () => 1, local: true },
  pinyin: { run: pinyin, unitsBefore: pinyinUnits, local: true },
};

/**
 * The catalog's tools, ready to run. The HTTP client (undici) is imported only for a catalog that
 * has HTTP upstreams: ~30 MB a process of built-in tools does not hold.
 */
export async function runnableTools(tools: Iterable<Tool>, log: FastifyBaseLogger): Promise<Map<string, RunnableTool>> {
  const runnable = new Map<string, RunnableTool>();
  for (const tool of tools) {
    if (tool.handler.type === "builtin") {
      runnable.set(tool.id, BUILTINS[tool.handler.name]);
      continue;
    }
    const { httpUpstream } = await import("./http-upstream");
    const upstream = httpUpstream(tool.handler, log);
    const meter = tool.handler.protocol === "openai" ? (await import("./openai")).openAiMeter(tool.id, tool.handler, upstream.run, log) : undefined;
    runnable.set(tool.id, {
      meter,
      local: false,
      run: upstream.run,
      close: upstream.close,
      unitsBefore: tool.unit ? tool.maxUnitsPerCall : 1,
      perUnit: Boolean(tool.unit),
      maxRequestBytes: tool.handler.maxRequestBytes,
      startsEarly: tool.handler.startEarly,
    });
  }
  return runnable;
}
