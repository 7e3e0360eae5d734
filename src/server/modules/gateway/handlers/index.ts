import type { Tool } from "../../catalog/catalog-file";
import { echo } from "./echo";
import { httpUpstream } from "./http-upstream";
import { pinyin, pinyinUnits } from "./pinyin";
import { qrcode } from "./qrcode";
import type { ToolHandler, ToolRequest } from "./types";

export interface RunnableTool {
  run: ToolHandler;
  /** Units the call will use at most, known before it runs. */
  unitsBefore(request: ToolRequest): number;
  /** Runs in this process and reaches nothing outside it (a built-in), so it may run before it is paid for. */
  local: boolean;
}

const BUILTINS: Record<"echo" | "qrcode" | "pinyin", RunnableTool> = {
  echo: { run: echo, unitsBefore: () => 1, local: true },
  qrcode: { run: qrcode, unitsBefore: () => 1, local: true },
  pinyin: { run: pinyin, unitsBefore: pinyinUnits, local: true },
};

export function runnableTool(tool: Tool): RunnableTool {
  if (tool.handler.type === "builtin") return BUILTINS[tool.handler.name];
  if (!tool.unit) {
    // Priced per call: whatever units the upstream reports do not change the price.
    const run = httpUpstream(tool.handler);
    return { run: async (request) => ({ ...(await run(request)), units: undefined }), unitsBefore: () => 1, local: false };
  }
  return { run: httpUpstream(tool.handler), unitsBefore: () => tool.maxUnitsPerCall, local: false };
}
