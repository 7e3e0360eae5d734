import { queryOptions } from "@tanstack/react-query";
import type { PublicTool } from "#shared/catalog";
import { api } from "../http";

/** GET /api/v1/tools: the catalog, read by the key form's allowed tools and the billing filter. */
export function listTools(): Promise<PublicTool[]> {
  return api<{ tools: PublicTool[] }>("/api/v1/tools").then((r) => r.tools);
}

export function toolsQueryOptions() {
  return queryOptions({ queryKey: ["tools"], queryFn: listTools, staleTime: 300_000 });
}
