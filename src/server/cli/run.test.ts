import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ManualClock } from "../clock";
import { loadConfig } from "../config";
import type { Database } from "../db/client";
import type { CliCommand } from "../lib/cli/command";
import { adminCli } from "../testing/admin-cli";
import { runCli } from "./run";
import { createTestDatabase } from "../testing/test-database";
import { createUserWithSession } from "../testing/users";

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

  it("says a negative number where a user is named is no phone or user id, not an amount or count", async () => {
    for (const command of [["users", "find"], ["users", "show"], ["packages", "list"]]) {
      const run = await cli(...command, "-1");
      expect([run.code, run.out, run.err.split("\n")[0]], command.join(" ")).toEqual([64, "", '"-1": a phone or user id is never negative']);
    }
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

  it("knows a numeric option from the command's own definition, whatever its name", async () => {
    let ran = false;
    const command: CliCommand = {
      name: "stock take",
      summary: "a command of this test",
      usage: "stock take --days <n> [--note <text>]",
      examples: ["stock take --days 3"],
      options: { days: "number", note: true },
      run: async () => {
        ran = true;
        return 0;
      },
    };
    const err: string[] = [];
    const code = await runCli(["admin", "stock", "take", "--days", "-3"], { database, config, clock, out: () => {}, err: (line) => err.push(line) }, [command]);
    expect([code, err[0]?.split("\n")[0], ran]).toEqual([64, '--days: "-3": amounts and counts are never negative', false]);
    expect(await runCli(["admin", "stock", "take", "--days", "3", "--note", "ok"], { database, config, clock, out: () => {}, err: () => {} }, [command])).toBe(0);
    expect(ran).toBe(true);
  });

  it("refuses an option that takes a value given twice, and runs nothing", async () => {
    for (const [option, argv] of [
      ["--amount", ["codes", "create", "--amount", "5", "--amount", "50", "--count", "1"]],
      ["--count", ["codes", "create", "--amount", "5", "--count=1", "--count", "100"]],
      ["--limit", ["audit", "--limit", "1", "--limit", "2"]],
    ] as const) {
      const run = await cli(...argv);
      expect([run.code, run.out, run.err.split("\n")[0]], argv.join(" ")).toEqual([64, "", `${option} is given more than once: give it once`]);
    }
    expect((await cli("codes", "list", "--json")).out).toMatch(/^\[\s*\]$|"codes":\s*\[\s*\]/);
    // A flag said twice means what it says once.
    expect((await cli("codes", "list", "--json", "--json")).code).toBe(0);
  });
});

describe("tollgate admin: an empty answer", () => {
  it("prints no header over no rows, and says on stderr that there is nothing, in every listing alike", async () => {
    const fresh = await createTestDatabase();
    try {
      const run = adminCli({ database: fresh, config, clock });
      // The audit log of a new site is empty until its first command is recorded.
      expect(await run("audit")).toEqual({ code: 0, out: "", err: "the operator audit log is empty: no admin command has run yet" });
      const user = await createUserWithSession({ database: fresh, clock });
      await run("sessions", "revoke", String(user.userId));
      expect(await run("sessions", "list", String(user.userId))).toEqual({ code: 0, out: "", err: `0 live sessions of user ${user.userId} (${user.phone.slice(0, 3)}****${user.phone.slice(-4)})` });
      expect(await run("packages", "list", String(user.userId))).toEqual({ code: 0, out: "", err: `user ${user.userId} has no lots: no free quota used, no package bought or granted` });
      expect(await run("codes", "list", "--state", "redeemed")).toEqual({ code: 0, out: "", err: "0 codes" });
      expect(await run("applications", "list")).toEqual({ code: 0, out: "", err: "no pending applications" });
      // --json still prints its document: an empty list.
      expect((await run("packages", "list", String(user.userId), "--json")).out).toBe("[]");
    } finally {
      await fresh.close();
    }
  });
});
