import { randomUUID } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { changedFunctionFiles, MIGRATIONS_DIR } from "./db-functions";

/**
 * `npm run db:function-migration -- <name>`: writes drizzle/<next>_<name>.sql holding every function
 * file in src/server/db/functions/ that differs from its newest migration (or that no migration
 * holds yet), copied as it is, with its journal entry and a snapshot (the schema did not change, so
 * the newest snapshot under a new id). Edit the migration's first comment to say why; a change of
 * a function's arguments or result needs a `DROP FUNCTION` written above its definition.
 */
const changed = changedFunctionFiles();
if (changed.length === 0) {
  console.log("every function file matches its newest migration: nothing to migrate");
  process.exit(0);
}
const name = process.argv[2];
if (!name || !/^[a-z0-9_]+$/.test(name)) {
  console.error("usage: npm run db:function-migration -- <name in snake_case, e.g. charge_call_counts_units>");
  process.exit(2);
}
for (const f of changed) {
  if (!f.definition) {
    console.error(`${f.file} must hold one CREATE OR REPLACE FUNCTION "${f.name}"(…) … AS $$ … $$; statement`);
    process.exit(1);
  }
}

const journalFile = path.join(MIGRATIONS_DIR, "meta/_journal.json");
type Entry = { idx: number; version: string; when: number; tag: string; breakpoints: boolean };
const journal = JSON.parse(fs.readFileSync(journalFile, "utf8")) as { entries: Entry[] };
const last = journal.entries.at(-1)!;
const idx = last.idx + 1;
const tag = `${String(idx).padStart(4, "0")}_${name}`;

const sql = [
  `-- TODO: why these functions change. Written by npm run db:function-migration from ${changed.map((f) => f.file).join(", ")}.\n`,
  changed.map((f) => f.content.trimEnd() + "\n").join("--> statement-breakpoint\n"),
].join("");
fs.writeFileSync(path.join(MIGRATIONS_DIR, `${tag}.sql`), sql);

// drizzle-kit diffs the schema against the newest snapshot, which a function changes nothing in.
const snapshots = fs.readdirSync(path.join(MIGRATIONS_DIR, "meta")).filter((f) => /^\d{4}_snapshot\.json$/.test(f)).sort();
const previous = JSON.parse(fs.readFileSync(path.join(MIGRATIONS_DIR, "meta", snapshots.at(-1)!), "utf8")) as { id: string; prevId: string };
const snapshot = { ...previous, id: randomUUID(), prevId: previous.id };
fs.writeFileSync(path.join(MIGRATIONS_DIR, "meta", `${tag.slice(0, 4)}_snapshot.json`), JSON.stringify(snapshot, null, 2) + "\n");

// The migrator applies a migration only when its `when` is later than every applied one's (tests/unit/migrations-generated.test.ts).
journal.entries.push({ idx, version: last.version, when: Math.max(Date.now(), ...journal.entries.map((e) => e.when + 86_400_000)), tag, breakpoints: true });
fs.writeFileSync(journalFile, JSON.stringify(journal, null, 2) + "\n");

console.log(`wrote drizzle/${tag}.sql with ${changed.map((f) => f.name).join(", ")}: say why in its first line, then commit it with drizzle/meta/`);
