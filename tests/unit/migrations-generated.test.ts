import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { expect, it } from "vitest";

/**
 * `npm run db:generate` diffs the schema (src/server/db/schema/) against the newest snapshot in
 * drizzle/meta/. Every schema change must come with its migration and snapshot, so generating now
 * finds nothing: otherwise the next newcomer's migration would re-create what is already there.
 */
it("generating a migration from the schema finds nothing to migrate", () => {
  const root = path.resolve(import.meta.dirname, "../..");
  // drizzle-kit reads `out` relative to the working directory, so the copy sits inside the project.
  const out = path.join(".test-output", `drizzle-generate-${process.pid}`);
  fs.rmSync(path.join(root, out), { recursive: true, force: true });
  fs.cpSync(path.join(root, "drizzle"), path.join(root, out), { recursive: true });
  const config = path.join(root, out, "drizzle.config.ts");
  fs.writeFileSync(config, `export default { dialect: "postgresql", schema: "./src/server/db/schema/*.ts", out: "./${out}" };\n`);
  try {
    const before = fs.readdirSync(path.join(root, out)).sort();
    const printed = execFileSync(path.join(root, "node_modules/.bin/drizzle-kit"), ["generate", "--config", config, "--name", "unexpected"], { cwd: root, encoding: "utf8" });
    expect(printed).toContain("No schema changes, nothing to migrate");
    expect(fs.readdirSync(path.join(root, out)).sort()).toEqual(before);
  } finally {
    fs.rmSync(path.join(root, out), { recursive: true, force: true });
  }
}, 120_000);
