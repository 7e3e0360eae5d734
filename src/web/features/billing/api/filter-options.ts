import { queryOptions } from "@tanstack/react-query";
import type { PublicTool } from "../../../../shared/catalog";
import { api } from "../../../lib/http";

/** What the filters offer: the catalog's tools and the user's keys (names only). */
export const toolOptionsQuery = queryOptions({
  queryKey: ["tools"],
  queryFn: async () => (await api<{ tools: PublicTool[] }>("/api/v1/tools")).tools,
  staleTime: 300_000,
});

export const keyOptionsQuery = queryOptions({
  queryKey: ["api-keys", "names"],
  queryFn: async () => (await api<{ keys: { id: number; name: string }[] }>("/api/v1/console/keys")).keys,
});
