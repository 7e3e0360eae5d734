import { expect, it } from "vitest";
import { functionFiles, newestMigrationDefinitions, normalized } from "../../scripts/db-functions";

/**
 * Each SQL function's current text is the file src/server/db/functions/<name>.sql; the migrations
 * hold copies made by `npm run db:function-migration`. The newest migration that defines a function
 * must define it as its file does, so a reader of the file reads what the database runs.
 */
const FIX = "change the file, then run `npm run db:function-migration -- <name>` to copy it into a new migration";

it("every SQL function a migration defines has a file of its own, holding one definition of it", () => {
  const files = functionFiles();
  expect([...newestMigrationDefinitions().keys()].sort(), "a function the migrations define has no file in src/server/db/functions/").toEqual(
    files.map((f) => f.name),
  );
  for (const f of files) expect(f.definition, `${f.file} holds one CREATE OR REPLACE FUNCTION "${f.name}"(…) … AS $$ … $$;`).toBeDefined();
});

it("the newest migration that defines each function defines it as its file does", () => {
  const migrated = newestMigrationDefinitions();
  for (const f of functionFiles()) {
    const inMigration = migrated.get(f.name);
    expect(normalized(inMigration?.text ?? ""), `${f.file} differs from ${inMigration?.migration ?? "every migration"}: ${FIX}`).toBe(
      normalized(f.definition?.text ?? ""),
    );
  }
});
