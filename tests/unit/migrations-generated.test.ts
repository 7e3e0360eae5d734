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
  fs.writeFileSync(config, `export default { dialect: "postgresql", schema: "./src/server/db/schema/index.ts", out: "./${out}" };\n`);
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
 * Tollgate applies every migration the database has not recorded (docs/decisions/059), but drizzle's
 * own migrator, and `drizzle-kit migrate` run by hand, apply only those dated after the newest one
 * applied. `drizzle-kit generate` dates a migration now, and 0021 was dated a day ahead (0022 to 0026
 * are dated before it): from 0027 on, each is dated after every one before it.
 */
it("dates each migration from 0027 on after every migration before it", () => {
  const journal = JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, "../../drizzle/meta/_journal.json"), "utf8")) as { entries: { idx: number; when: number; tag: string }[] };
  let latest = 0;
  for (const entry of journal.entries) {
    if (entry.idx >= 27) expect(entry.when, `${entry.tag}: set its "when" in drizzle/meta/_journal.json above ${latest}`).toBeGreaterThan(latest);
    latest = Math.max(latest, entry.when);
  }
});
