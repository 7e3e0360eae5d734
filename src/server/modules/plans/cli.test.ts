import { insertApiKey } from "../../testing/keys";
import fs from "node:fs";
import path from "node:path";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ManualClock } from "../../clock";
import { loadConfig } from "../../config";
import type { Database } from "../../db/client";
import { users } from "../../db/schema/index";
import { adminCli } from "../../testing/admin-cli";
import { tempDataDir } from "../../testing/temp-dir";
import { createTestDatabase } from "../../testing/test-database";
import { createUserWithSession } from "../../testing/users";
import { buyPackage, chargeBatch, refundBatch } from "../ledger/index";
import { verifyLedger } from "../ledger/verify";

let database: Database;
const clock = new ManualClock("2026-03-01T08:00:00Z");
const catalog = path.join(tempDataDir("packages-cli-"), "tools.json");
fs.writeFileSync(
  catalog,
  JSON.stringify({
    tools: [
      {
        id: "ocr",
        name: "OCR",
        description: "d",
        category: "image",
        price: "0.01",
        handler: { type: "builtin", name: "echo" },
        packages: [{ id: "starter", name: "Starter", units: 3, price: "1.00", validDays: 30 }],
      },
    ],
  }),
);
const config = loadConfig({ NODE_ENV: "test", SESSION_SECRET: "s".repeat(32), DATA_DIR: "/tmp/tollgate-test-data", TOOLS_CATALOG: catalog });
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database.close());

const cli = (...argv: string[]) => adminCli({ database, config, clock })(...argv);

const balanceOf = async (userId: number) => (await database.db.select().from(users).where(eq(users.id, userId)))[0]!.balance;

describe("tollgate admin packages", () => {
  it("--help shows the packages commands, not the top-level help; the group alone asks for one of them", async () => {
    const help = await cli("packages", "--help");
    expect(help.code).toBe(0);
    const lines = help.out.split("\n");
    expect(lines[0]).toBe("usage: tollgate admin packages <command> [arguments]");
    expect(lines.filter((l) => /^ {2}packages (grant|list|refund) /.test(l))).toHaveLength(3);
    expect(help.out).not.toMatch(/users find|codes create/);
    expect(help.out).toContain("tollgate admin packages grant ");
    const bare = await cli("packages");
    expect(bare.code).toBe(64);
    expect(bare.err).toMatch(/^packages: give one of its commands\n\nusage: tollgate admin packages <command>/);
    expect((await cli("packages", "grant", "--help")).out).toMatch(/^usage: tollgate admin packages grant /);
  });

  it("grants lots of a package once per --idempotency-key, and lists them as a table or JSON", async () => {
    const user = await createUserWithSession({ database, clock }, { phone: "13700001111" });
    const granted = await cli("packages", "grant", "13700001111", "--package", "ocr/starter", "--count", "2", "--idempotency-key", "ticket-9");
    expect(granted.code).toBe(0);
    expect(granted.err).toMatch(/granted 2 × Starter \(3 units of ocr\) to user \d+/);
    const again = await cli("packages", "grant", "13700001111", "--package", "ocr/starter", "--count", "2", "--idempotency-key", "ticket-9");
    expect(again.err).toMatch(/already granted/);
    const table = await cli("packages", "list", String(user.userId));
    const lines = table.out.split("\n");
    expect(lines[0]).toMatch(/^LOT +TOOL +SOURCE +NAME +LEFT +PAID +EXPIRES +REFUNDED$/);
    expect(lines.slice(1)).toHaveLength(2);
    expect(lines[1]).toMatch(/ocr +grant +Starter +3\/3 +0\.00 +2026-03-31 16:00:00 \+08:00 +-/);
    const json = JSON.parse((await cli("packages", "list", String(user.userId), "--json")).out) as { source: string; unitsLeft: number }[];
    expect(json.map((l) => [l.source, l.unitsLeft])).toEqual([
      ["grant", 3],
      ["grant", 3],
    ]);
  });

  it("refuses an --idempotency-key already used for a grant of another count and gives nothing", async () => {
    const user = await createUserWithSession({ database, clock });
    const lotsOf = async () => JSON.parse((await cli("packages", "list", String(user.userId), "--json")).out) as { id: number; source: string }[];
    const first = await cli("packages", "grant", String(user.userId), "--package", "ocr/starter", "--count", "2", "--idempotency-key", "ticket-12");
    expect(first.code).toBe(0);
    const lots = (await lotsOf()).map((l) => l.id).sort((a, b) => a - b);
    expect(lots).toHaveLength(2);
    for (const count of ["3", "1"]) {
      const other = await cli("packages", "grant", String(user.userId), "--package", "ocr/starter", "--count", count, "--idempotency-key", "ticket-12");
      expect([count, other.code, other.out, other.err]).toEqual([
        count,
        1,
        "",
        `--idempotency-key "ticket-12" was used for a grant of 2 × ocr/starter to user ${user.userId} (lots ${lots.join(", ")}): nothing was given; a different grant needs a key of its own`,
      ]);
    }
    // The key of another grant that merely starts like this one is that grant's own.
    expect((await cli("packages", "grant", String(user.userId), "--package", "ocr/starter", "--idempotency-key", "ticket-12:1")).code).toBe(0);
    expect(await lotsOf()).toHaveLength(3);
    // The same grant again is answered with its lots, and gives nothing.
    const again = await cli("packages", "grant", String(user.userId), "--package", "ocr/starter", "--count", "2", "--idempotency-key", "ticket-12");
    expect([again.code, again.err]).toEqual([0, "already granted with this --idempotency-key: nothing new was given"]);
    expect(await lotsOf()).toHaveLength(3);
    expect((await verifyLedger(database.db)).problems).toEqual([]);
  });

  it("exits 78 on a tool catalog with a mistake, naming it as the server does, and grants nothing", async () => {
    const bad = path.join(tempDataDir("packages-cli-bad-"), "tools.json");
    fs.writeFileSync(bad, JSON.stringify({ tools: [{ id: "ocr", name: "OCR", description: "d", category: "c", price: "0.01", requireApproval: true, handler: { type: "builtin", name: "echo" } }] }));
    const badConfig = loadConfig({ NODE_ENV: "test", SESSION_SECRET: "s".repeat(32), DATA_DIR: "/tmp/tollgate-test-data", TOOLS_CATALOG: bad });
    const user = await createUserWithSession({ database, clock });
    const run = await adminCli({ database, config: badConfig, clock })("packages", "grant", String(user.userId), "--package", "ocr/starter");
    expect(run).toEqual({ code: 78, out: "", err: `Invalid tool catalog ${bad}:\n  - tools.0: Unrecognized key: "requireApproval" (tool "ocr")` });
    expect(JSON.parse((await cli("packages", "list", String(user.userId), "--json")).out)).toEqual([]);
  });

  it("refuses an unknown package, a bad count and an unknown user, saying what to give", async () => {
    const user = await createUserWithSession({ database, clock });
    const unknownTool = await cli("packages", "grant", String(user.userId), "--package", "nope/starter");
    expect([unknownTool.code, unknownTool.err]).toEqual([64, expect.stringMatching(/the catalog has no tool "nope"/)]);
    const unknownPackage = await cli("packages", "grant", String(user.userId), "--package", "ocr/gold");
    expect(unknownPackage.err).toMatch(/the tool ocr sells no package "gold"; it sells: starter/);
    expect((await cli("packages", "grant", String(user.userId), "--package", "ocr/starter", "--count", "0")).err).toMatch(/^--count: a whole number from 1 to 100 is required, in plain digits$/m);
    expect((await cli("packages", "grant", String(user.userId))).err).toMatch(/give --package <tool id>\/<package id>/);
    const nobody = await cli("packages", "grant", "99999999", "--package", "ocr/starter");
    expect([nobody.code, nobody.err]).toEqual([1, expect.stringMatching(/no user with phone or id "99999999"/)]);
  });

  /** A user with ¥5 who bought a Starter package of `units` ocr units for ¥1, a key, and the terms its calls draw with. */
  async function boughtStarter(units: number) {
    const user = await createUserWithSession({ database, clock }, { balance: "5" });
    const bought = await buyPackage(database.db, {
      userId: user.userId,
      terms: { toolId: "ocr", packageId: "starter", name: "Starter", units, price: 1_000_000n, validDays: 30 },
      at: clock.now(),
      idempotencyKey: `starter-${units}`,
    });
    if (!bought.ok) throw new Error("the purchase was refused");
    const keyId = await insertApiKey(database.db, user.userId, clock.now());
    const prepaid = { price: 10_000n, freeUnits: 0, freeFrom: clock.now(), freeUntil: clock.now(), stopWhenOut: false };
    return { user, lot: bought.lot, keyId, prepaid };
  }

  it("refunds a bought lot's unused units pro rata, once; a grant is not refunded", async () => {
    const { user, lot, keyId, prepaid } = await boughtStarter(3);
    // One call draws two units of it, leaving one: the sentence counts it as one unit.
    const ended = { httpStatus: 200, latencyMs: 1, at: clock.now() };
    const [charged] = await chargeBatch(database.db, [
      { userId: user.userId, apiKeyId: keyId, toolId: "ocr", units: 2, amount: 20_000n, requestId: "two-draws", at: clock.now(), ended, prepaid },
    ]);
    expect(charged).toMatchObject({ ok: true, prepaidUnits: 2, prepaidLeft: 1 });
    const refund = await cli("packages", "refund", String(lot.id), "--reason", "tool retired");
    expect(refund.code).toBe(0);
    expect(refund.out).toBe(`refunded 0.333333 for 1 unused unit of lot ${lot.id}; balance now 4.333333`);
    expect(await balanceOf(user.userId)).toBe(4_333_333n);
    const twice = await cli("packages", "refund", String(lot.id), "--reason", "again");
    expect([twice.code, twice.err]).toEqual([1, `lot ${lot.id}: this lot was refunded before; nothing was refunded`]);
    await cli("packages", "grant", String(user.userId), "--package", "ocr/starter", "--idempotency-key", "gift");
    const [grant] = JSON.parse((await cli("packages", "list", String(user.userId), "--json")).out) as { id: number; source: string }[];
    expect(grant!.source).toBe("grant");
    expect((await cli("packages", "refund", String(grant!.id), "--reason", "x")).err).toMatch(/only a bought package is refunded/);
    expect((await cli("packages", "refund", "12345678", "--reason", "x")).err).toMatch(/there is no lot with this id/);
    // A negative lot id is spoken of as an id, not an amount.
    const negative = await cli("packages", "refund", "-3", "--reason", "x");
    expect([negative.code, negative.err.split("\n")[0]]).toEqual([64, '"-3": a lot id is never negative']);
    expect((await cli("packages", "refund", "--reason", "x", "-3")).err.split("\n")[0]).toBe('"-3": a lot id is never negative');
    // A word that is no id is not taken for no id at all.
    const word = await cli("packages", "refund", "abc", "--reason", "x");
    expect([word.code, word.err.split("\n")[0]]).toEqual([64, '"abc" is not a lot id (a whole number; packages list shows them)']);
    expect((await cli("packages", "refund", "--reason", "x")).err.split("\n")[0]).toBe("give one lot id (packages list shows them)");
    expect((await verifyLedger(database.db)).problems).toEqual([]);
  });

  it("refuses to refund a lot while a call holds units of its tool, and refunds them all once the call gave them back", async () => {
    const { user, lot, keyId, prepaid } = await boughtStarter(10);
    // Held before its upstream answers: pending, with 8 of the lot's units.
    const [held] = await chargeBatch(database.db, [
      { userId: user.userId, apiKeyId: keyId, toolId: "ocr", units: 8, amount: 80_000n, requestId: "holds-eight", at: clock.now(), prepaid },
    ]);
    if (!held?.ok) throw new Error("the hold was refused");
    expect(held.prepaidUnits).toBe(8);
    const refused = await cli("packages", "refund", String(lot.id), "--reason", "tool retired");
    expect([refused.code, refused.err]).toEqual([1, `lot ${lot.id}: calls of this tool still in flight hold units from the user's lots; refund it once they have ended (a call's hold ends with the call); nothing was refunded`]);
    expect(await balanceOf(user.userId)).toBe(4_000_000n);
    // The call fails: its 8 units go back to the lot, and the refund then pays for all 10.
    await refundBatch(database.db, [
      { usageId: held.usageId, userId: user.userId, apiKeyId: keyId, amount: 0n, requestId: "holds-eight", at: clock.now(), finalStatus: "refunded", units: 8, httpStatus: 502, latencyMs: 1 },
    ]);
    const refund = await cli("packages", "refund", String(lot.id), "--reason", "tool retired");
    expect(refund.out).toBe(`refunded 1.00 for 10 unused units of lot ${lot.id}; balance now 5.00`);
    expect((await verifyLedger(database.db)).problems).toEqual([]);
  });
});
