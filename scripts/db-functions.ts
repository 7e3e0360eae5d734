import fs from "node:fs";
import path from "node:path";

/**
 * The SQL functions' current texts live in src/server/db/functions/<name>.sql, one file each; a
 * migration holds a copy, written by `npm run db:function-migration` (scripts/db-function-migration.ts).
 * This module reads both sides: the test in tests/unit/db-functions.test.ts and the script compare
 * them the same way.
 */
export const ROOT = path.resolve(import.meta.dirname, "..");
export const FUNCTIONS_DIR = path.join(ROOT, "src/server/db/functions");
export const MIGRATIONS_DIR = path.join(ROOT, "drizzle");

/** One `CREATE [OR REPLACE] FUNCTION "name"(…) … AS $$ … $$;` statement, its body quoted with `$$`. */
const DEFINITION = /^CREATE (?:OR REPLACE )?FUNCTION "([a-z_][a-z0-9_]*)"\([\s\S]*?\$\$[\s\S]*?\$\$;/gm;

export interface Definition {
  name: string;
  /** The statement as written, from CREATE to the closing `$$;`. */
  text: string;
}

export function definitionsIn(sqlText: string): Definition[] {
  return [...sqlText.matchAll(DEFINITION)].map((m) => ({ name: m[1]!, text: m[0] }));
}

/**
 * Texts that define the same function compare equal: a first definition may say CREATE where the
 * file says CREATE OR REPLACE, and trailing spaces and blank lines do not count.
 */
export function normalized(text: string): string {
  return text
    .replace(/^CREATE FUNCTION /, "CREATE OR REPLACE FUNCTION ")
    .split("\n")
    .map((line) => line.trimEnd())
    .filter((line) => line !== "")
    .join("\n");
}

/** The migrations' file names in the order they run (drizzle/meta/_journal.json). */
export function migrationTags(): string[] {
  const journal = JSON.parse(fs.readFileSync(path.join(MIGRATIONS_DIR, "meta/_journal.json"), "utf8")) as { entries: { tag: string }[] };
  return journal.entries.map((e) => e.tag);
}

const DROP = /^DROP FUNCTION (?:IF EXISTS )?"([a-z_][a-z0-9_]*)"/gm;

/** Each function's newest definition in the migrations, and the migration holding it; a function dropped since is not there. */
export function newestMigrationDefinitions(): Map<string, Definition & { migration: string }> {
  const newest = new Map<string, Definition & { migration: string }>();
  for (const tag of migrationTags()) {
    const text = fs.readFileSync(path.join(MIGRATIONS_DIR, `${tag}.sql`), "utf8");
    const statements = [
      ...[...text.matchAll(DEFINITION)].map((m) => ({ at: m.index, name: m[1]!, text: m[0] as string | null })),
      ...[...text.matchAll(DROP)].map((m) => ({ at: m.index, name: m[1]!, text: null })),
    ].sort((x, y) => x.at - y.at);
    for (const { name, text: definition } of statements) {
      if (definition === null) newest.delete(name);
      else newest.set(name, { name, text: definition, migration: `drizzle/${tag}.sql` });
    }
  }
  return newest;
}

export interface FunctionFile {
  name: string;
  /** src/server/db/functions/<name>.sql, from the project's root. */
  file: string;
  /** The whole file: its comments and its one definition, as a migration copies it. */
  content: string;
  definition: Definition | undefined;
}

export function functionFiles(): FunctionFile[] {
  return fs
    .readdirSync(FUNCTIONS_DIR)
    .filter((f) => f.endsWith(".sql"))
    .sort()
    .map((f) => {
      const content = fs.readFileSync(path.join(FUNCTIONS_DIR, f), "utf8");
      const definitions = definitionsIn(content);
      return {
        name: f.slice(0, -".sql".length),
        file: path.relative(ROOT, path.join(FUNCTIONS_DIR, f)),
        content,
        definition: definitions.length === 1 && definitions[0]!.name === f.slice(0, -".sql".length) ? definitions[0] : undefined,
      };
    });
}

/** The function files whose definition no migration holds yet (new, or changed since the newest migration defining it). */
export function changedFunctionFiles(): FunctionFile[] {
  const migrated = newestMigrationDefinitions();
  return functionFiles().filter((f) => {
    const inMigration = migrated.get(f.name);
    return !f.definition || !inMigration || normalized(inMigration.text) !== normalized(f.definition.text);
  });
}
