import type { PublicTool } from "../../../../shared/catalog";
import { api } from "../../../lib/http";

export function listTools(): Promise<PublicTool[]> {
  return api<{ tools: PublicTool[] }>("/api/v1/tools").then((r) => r.tools);
}

export const toolsQuery = { queryKey: ["catalog-tools"], queryFn: listTools, staleTime: 300_000 };
