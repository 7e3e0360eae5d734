import type { PublicTool } from "./catalog";

type ToolWords = Pick<PublicTool, "name" | "description" | "category" | "unit">;

/**
 * The words a reader of `language` sees for a tool: the operator's translation where there is one,
 * English otherwise (a unit is translated only where the tool has one: the catalog refuses others).
 * Apart from ./catalog.ts so the landing page takes it without zod.
 */
export function toolText<T extends ToolWords & Pick<PublicTool, "translations">>(tool: T, language: string): T {
  return { ...tool, ...(tool.translations as Record<string, Partial<ToolWords> | undefined>)[language] };
}

/** A package's name for a reader of `language`: the operator's translation where there is one, English otherwise. */
export function packageName(pkg: Pick<PublicTool["packages"][number], "name" | "translations">, language: string): string {
  return (pkg.translations as Record<string, { name: string } | undefined>)[language]?.name ?? pkg.name;
}
