import type { Tool } from "../../catalog/catalog-file";
import { echo } from "./echo";
import { httpUpstream } from "./http-upstream";
import { pinyin } from "./pinyin";
import { qrcode } from "./qrcode";
import type { ToolHandler } from "./types";

const BUILTINS: Record<"echo" | "qrcode" | "pinyin", ToolHandler> = { echo, qrcode, pinyin };

export function handlerFor(tool: Tool): ToolHandler {
  return tool.handler.type === "builtin" ? BUILTINS[tool.handler.name] : httpUpstream(tool.handler);
}
