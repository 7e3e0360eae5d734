import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ManualClock } from "../clock";
import { loadConfig } from "../config";
import type { Database } from "../db/client";
import { adminCli } from "../testing/admin-cli";
import { createTestDatabase } from "../testing/test-database";

let database: Database;
const clock = new ManualClock("2026-03-01T08:00:00Z");
const config = loadConfig({ NODE_ENV: "test", SESSION_SECRET: "s".repeat(32), DATA_DIR: "/tmp/tollgate-test-data" });
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database.close());

const cli = (...argv: string[]) => adminCli({ database, config, clock })(...argv);

describe("tollgate admin: words a command does not take", () => {
  it("refuses a stray word after a command that takes none, and runs nothing", async () => {
    for (const argv of [
      ["ledger", "verify", "now"],
      ["codes", "list", "ABCD"],
      ["audit", "everything"],
      ["codes", "create", "extra", "--amount", "5", "--count", "1"],
      ["codes", "export", "extra", "--batch", "b"],
    ]) {
      const run = await cli(...argv);
      expect(run, argv.join(" ")).toMatchObject({ code: 64, out: "" });
      expect(run.err.split("\n")[0], argv.join(" ")).toBe(`unexpected "${argv[argv[0] === "audit" ? 1 : 2]}"`);
      expect(run.err).toMatch(/\nusage: tollgate admin /);
    }
    // No code was made by the refused `codes create`.
    expect((await cli("codes", "list", "--json")).out).toMatch(/^\[\s*\]$|"codes":\s*\[\s*\]/);
  });

  it("says a negative amount, count or limit given to an option is never negative", async () => {
    for (const [option, value, argv] of [
      ["--amount", "-5", ["codes", "create", "--amount", "-5", "--count", "1"]],
      ["--count", "-2", ["codes", "create", "--amount", "5", "--count", "-2"]],
      ["--limit", "-1", ["audit", "--limit", "-1"]],
      ["--limit", "-10", ["codes", "list", "--limit", "-10"]],
    ] as const) {
      const run = await cli(...argv);
      expect(run.code, argv.join(" ")).toBe(64);
      expect(run.err.split("\n")[0], argv.join(" ")).toBe(`${option}: "${value}": amounts and counts are never negative`);
      expect(run.err).not.toMatch(/ambiguous/);
    }
    expect((await cli("codes", "list", "--json")).out).toMatch(/^\[\s*\]$|"codes":\s*\[\s*\]/);
  });
});
