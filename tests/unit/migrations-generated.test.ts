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

/**
 * Drizzle's migrator applies a migration only when its journal `when` is later than the newest one
 * the database has applied, so a migration dated before an earlier one is skipped on an upgrade.
 * `drizzle-kit generate` dates a migration now, and 0021 was dated a day ahead: from 0027 on, each
 * is dated after every one before it (0022 to 0026 are dated before 0021, and a database that had
 * applied 0021 without them has skipped them: see the session notes of 2026-11-28).
 */
it("dates each migration from 0027 on after every migration before it", () => {
  const journal = JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, "../../drizzle/meta/_journal.json"), "utf8")) as { entries: { idx: number; when: number; tag: string }[] };
  let latest = 0;
  for (const entry of journal.entries) {
    if (entry.idx >= 27) expect(entry.when, `${entry.tag}: set its "when" in drizzle/meta/_journal.json above ${latest}`).toBeGreaterThan(latest);
    latest = Math.max(latest, entry.when);
  }
});
