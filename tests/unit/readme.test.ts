import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { COMMANDS } from "../../src/server/cli/commands";

const root = path.resolve(import.meta.dirname, "../..");
const read = (file: string) => fs.readFileSync(path.join(root, file), "utf8");

/** The repository's own paths a document names: `code spans` and Markdown links that look like files or folders. */
function namedPaths(markdown: string): string[] {
  const spans = [...markdown.matchAll(/`([^`\s]+)`/g)].map((m) => m[1]!);
  const links = [...markdown.matchAll(/\]\(([^)\s#]+)(?:#[^)]*)?\)/g)].map((m) => m[1]!);
  return [...spans, ...links].filter((p) => /^(\.\.?\/|[\w.-]+\/)/.test(p) && !/[<>*…$]|^https?:|^[\w.-]+:\/\//.test(p));
}

describe("the README", () => {
  it("explains the project with what a clone holds: every path it names is in the repository", () => {
    const readme = read("README.md");
    const missing = namedPaths(readme).filter((p) => {
      const resolved = path.resolve(root, p);
      return !resolved.startsWith(root + path.sep) || !fs.existsSync(resolved);
    });
    // What a first start, a build or a test run creates (the data folder, the build's files, the test reports) is not in a clone.
    expect(missing.filter((p) => !/^(\.\/)?(data|dist|build|builds|DATA_DIR|\.test-output)(\/|$)/.test(p))).toEqual([]);
    expect(readme).toContain("docs/spec/SPEC.md");
  });

  it("keeps SPEC.md's English strings in the copy the repository holds", () => {
    const spec = read("docs/spec/SPEC.md");
    for (const text of ["please enter the correct phone number", "please read and tick the User Agreement and Privacy Agreement first."]) {
      expect(spec).toContain(text);
    }
  });

  it("tells a first start how to get a balance to call with: the embedded defaults have no payment method", () => {
    const readme = read("README.md");
    // The section a newcomer follows, up to the test commands.
    const firstStart = readme.slice(readme.indexOf("## The two commands"), readme.indexOf("Run every test"));
    expect(firstStart).toContain("npm run tollgate -- admin credit 13800000000 10");
    expect(firstStart).toContain("npm run tollgate -- admin codes create --amount 10 --count 1");
    expect(firstStart).toContain("Charge details");
  });

  it("says where a login code really is: the SMS outbox, not the server log", () => {
    const readme = read("README.md");
    expect(readme).toContain("sms-outbox.jsonl");
    expect(readme).not.toMatch(/codes? (written|appear)[^.]*server\s+log/i);
  });

  it("lists every operator command with every option its usage names, so the table is the whole of what each takes", () => {
    const readme = read("README.md");
    const section = readme.slice(readme.indexOf("## Operator commands"), readme.indexOf("\n## ", readme.indexOf("## Operator commands") + 1));
    // The first cell of each row: the command lines it documents (a `|` inside a cell is written `\|`).
    const firstCells = section.split("\n").filter((line) => line.startsWith("| `")).map((line) => line.split(/(?<!\\)\|/)[1]!);
    const missing = COMMANDS.flatMap((command) => {
      const cell = firstCells.find((text) => new RegExp(`(^|/) *\`${command.name}( |\`)`).test(text.trim()));
      if (!cell) return [`${command.name}: no row`];
      return [...command.usage.matchAll(/--[a-z][a-z-]*/g)].map((m) => m[0]).filter((option) => !cell.includes(option)).map((option) => `${command.name}: ${option}`);
    });
    expect(missing).toEqual([]);
  });
});
