import { ESLint } from "eslint";
import { describe, expect, it } from "vitest";

const eslint = new ESLint();

/** The feature-boundary messages the project's lint config gives `code` as if it were `filePath`. */
async function boundaryProblems(code: string, filePath: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return result!.messages.filter((m) => m.ruleId === "tollgate/no-cross-feature-imports").map((m) => m.message);
}

describe("npm run lint keeps features apart", () => {
  it("refuses an import from another feature, static, re-exported or dynamic, at any depth", async () => {
    const file = "src/web/features/credits/api/probe.ts";
    expect(await boundaryProblems('import { billingQueryOptions } from "../../billing/api/list-billing";\n', file)).toEqual([
      "src/web/features/credits imports from src/web/features/billing: move what both need to src/web/lib or src/web/components",
    ]);
    expect(await boundaryProblems('export * from "../../billing/api/list-billing";\n', file)).toHaveLength(1);
    expect(await boundaryProblems('export const load = () => import("../../alerts/alerts-card");\n', file)).toHaveLength(1);
  });

  it("lets a feature import itself, lib and components, and routes import any feature", async () => {
    const inFeature = 'import { creditsQueryOptions } from "./list-credits";\nimport { toast } from "../../../lib/toast";\nimport { SiteHeader } from "../../../components/site-chrome";\n';
    expect(await boundaryProblems(inFeature, "src/web/features/credits/api/probe.ts")).toEqual([]);
    expect(await boundaryProblems('import { CreditsHistory } from "../../features/credits/credits-history";\n', "src/web/routes/console/probe.tsx")).toEqual([]);
  });
});
