import type { PublicTool } from "#shared/catalog";
import { toolText } from "#shared/tool-text";
import type { Translate } from "../i18n";

/** `10 calls` for a tool priced per call, `10 units (character)` for one priced per unit. */
export function unitsText(t: Translate, units: number, tool: PublicTool | undefined, language: string): string {
  const unit = tool ? toolText(tool, language).unit : null;
  const count = units.toLocaleString("en-US");
  return unit ? t("plans.unitsOf", { units: count, unit }) : t("plans.calls", { units: count });
}
