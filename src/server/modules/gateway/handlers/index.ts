import type { Tool } from "../../catalog/catalog-file";
import { echo } from "./echo";
import { httpUpstream } from "./http-upstream";
import { pinyin, pinyinUnits } from "./pinyin";
import { qrcode } from "./qrcode";
import type { ToolHandler, ToolRequest } from "./types";

export interface RunnableTool {
  run: ToolHandler;
  /** Units the call will use, known before it runs; charged up front, corrected after. */
  unitsBefore(request: ToolRequest): number;
}

const BUILTINS: Record<"echo" | "qrcode" | "pinyin", RunnableTool> = {
  echo: { run: echo, unitsBefore: () => 1 },
  qrcode: { run: qrcode, unitsBefore: () => 1 },
  pinyin: { run: pinyin, unitsBefore: pinyinUnits },
};

export function runnableTool(tool: Tool): RunnableTool {
  if (tool.handler.type === "builtin") return BUILTINS[tool.handler.name];
  if (!tool.unit) {
    // Priced per call: whatever units the upstream reports do not change the price.
    const run = httpUpstream(tool.handler);
    return { run: async (request) => ({ ...(await run(request)), units: undefined }), unitsBefore: () => 1 };
  }
  return { run: httpUpstream(tool.handler), unitsBefore: () => tool.maxUnitsPerCall };
}
