import { queryOptions, useQuery } from "@tanstack/react-query";
import { useCallback } from "react";
import type { PublicTool } from "#shared/catalog";
import { packageName, toolText } from "#shared/tool-text";
import { useLanguage } from "../../i18n";
import { api } from "../http";

/** GET /api/v1/tools: the catalog, read by the key form's allowed tools and the billing filter. */
export function listTools(): Promise<PublicTool[]> {
  return api<{ tools: PublicTool[] }>("/api/v1/tools").then((r) => r.tools);
}

export function toolsQueryOptions() {
  return queryOptions({ queryKey: ["tools"], queryFn: listTools, staleTime: 300_000 });
}

/**
 * A tool's name in the reader's language, from the catalog; until the catalog has loaded (or for a
 * tool no longer in it), `fallback` (the English name a console route sent) or the tool's id.
 */
export function useToolName(): (toolId: string, fallback?: string) => string {
  const tools = useQuery(toolsQueryOptions()).data;
  const language = useLanguage((s) => s.language);
  return useCallback(
    (toolId, fallback) => {
      const tool = tools?.find((candidate) => candidate.id === toolId);
      return tool ? toolText(tool, language).name : (fallback ?? toolId);
    },
    [tools, language],
  );
}

/**
 * A package's name in the reader's language, from the catalog; `fallback` (its name when it was
 * bought or granted) until the catalog has loaded, or once the tool no longer sells it.
 */
export function usePackageName(): (toolId: string, packageId: string | null, fallback: string) => string {
  const tools = useQuery(toolsQueryOptions()).data;
  const language = useLanguage((s) => s.language);
  return useCallback(
    (toolId, packageId, fallback) => {
      const pkg = tools?.find((tool) => tool.id === toolId)?.packages.find((candidate) => candidate.id === packageId);
      return pkg ? packageName(pkg, language) : fallback;
    },
    [tools, language],
  );
}
