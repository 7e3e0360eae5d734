import os from "node:os";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { operatorAudit, users } from "../../db/schema/index";
import { phoneLoginClient } from "../../testing/phone-login";
import { adminCli } from "../../testing/admin-cli";
import { createTestApp, type TestApp } from "../../testing/test-app";
import { createUserWithSession, type TestUser } from "../../testing/users";
import { COMMANDS } from "../../cli/commands";
import { verifyLedger } from "../ledger/verify";
import { grantPackage } from "../ledger/index";

/** The operator's toolkit against the real app: users found, shown, disabled and enabled; debits; the audit log. */
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const cli = (...argv: string[]) => adminCli(t)(...argv);

async function userWithKey(balance = "5", phone?: string): Promise<TestUser & { secret: string; keyId: number }> {
  const user = await createUserWithSession(t, { balance, phone });
  const res = await t.app.inject({ method: "POST", url: "/api/v1/console/keys", headers: user.headers, payload: { name: "ops" } });
  expect(res.statusCode).toBe(201);
  return { ...user, secret: res.json().secret, keyId: res.json().key.id };
}

const echo = (secret: string) => t.app.inject({ method: "POST", url: "/v1/tools/echo", payload: { hi: 1 }, headers: { authorization: `Bearer ${secret}` } });
const balanceOf = async (userId: number) => (await t.database.db.select().from(users).where(eq(users.id, userId)))[0]!.balance;

describe("tollgate admin users find", () => {
  it("finds a user by whole phone, by id, by their API key and by the key as the console masks it", async () => {
    const user = await userWithKey("1", "13700001234");
    const masked = `tg_…${user.secret.slice(-4)}`;
    for (const words of ["13700001234", "+86 137 0000 1234", String(user.userId), user.secret, masked]) {
      const found = await cli("users", "find", words, "--json");
      expect([words, found.code]).toEqual([words, 0]);
      expect((JSON.parse(found.out) as { id: number }[]).map((u) => u.id)).toContain(user.userId);
    }
  });

  it("lists every user a few digits match under a header row and exits 2 for several, so a script never takes one of them for the user; exits 1 when nothing matches", async () => {
    const a = await createUserWithSession(t, { phone: "13655550001" });
    const b = await createUserWithSession(t, { phone: "13855550002" });
    const found = await cli("users", "find", "55550");
    expect(found.code).toBe(2);
    const [header, ...rows] = found.out.split("\n");
    expect(header).toMatch(/^ID +PHONE +BALANCE +SIGNED UP +STATE$/);
    expect(rows.map((r) => r.split(/ +/)[0])).toEqual([String(a.userId), String(b.userId)]);
    expect(rows[0]).toContain("2026-03-01 16:00:00 +08:00");
    // Columns line up: every row's phone starts where the header's PHONE does.
    expect(new Set(found.out.split("\n").map((line) => line.search(/PHONE|13[68]5/)))).toEqual(new Set([header!.indexOf("PHONE")]));
    expect(found.err).toBe(`"55550" matches 2 users: name one by its id, e.g. tollgate admin users show ${a.userId}`);
    const several = await cli("users", "find", "55550", "--json");
    expect(several.code).toBe(2);
    expect((JSON.parse(several.out) as { id: number; phone: string }[]).map((u) => [u.id, u.phone])).toEqual([
      [a.userId, "13655550001"],
      [b.userId, "13855550002"],
    ]);
    const one = await cli("users", "find", "6555500");
    expect(one.code).toBe(0);
    expect(one.err).toBe("");

    const none = await cli("users", "find", "tg_…zzzz", "--json");
    expect(none.code).toBe(1);
    expect(JSON.parse(none.out)).toEqual([]);
    expect(none.err).toBe('no user matches "tg_…zzzz"');
    // In a table, no match is that sentence alone, with no header over no rows.
    expect(await cli("users", "find", "tg_…zzzz")).toEqual({ code: 1, out: "", err: 'no user matches "tg_…zzzz"' });
    // Fewer than 4 digits are an id only, and the operator is told so rather than that no phone has them.
    expect(await cli("users", "find", "999")).toEqual({ code: 1, out: "", err: "no user has id 999; to search phone numbers, give at least 4 of their digits" });
    // Words no user could be named by are a usage error, not a search that found no one.
    const word = await cli("users", "find", "abc");
    expect([word.code, word.out, word.err.split("\n")[0]]).toEqual([64, "", '"abc" names no user: give a phone number, 4 or more of its digits, a user id, an API key or a masked key (tg_…wxyz)']);
    expect((await cli("users", "find")).code).toBe(64);
    expect((await cli("users", "find", "a", "b")).code).toBe(64);
  });
});

describe("tollgate admin users show", () => {
  it("shows the phone in full, the balance, keys masked with their spend, tool approvals, open holds and last calls", async () => {
    const user = await userWithKey("2");
    expect((await echo(user.secret)).statusCode).toBe(200);
    // A refused call is no charged call, but the operator sees it among the failures (from the call log).
    const refused = await t.app.inject({ method: "POST", url: "/v1/tools/no-such-tool", payload: {}, headers: { authorization: `Bearer ${user.secret}` } });
    expect(refused.statusCode).toBe(404);
    await t.app.callLog.drain();
    const shown = await cli("users", "show", String(user.userId), "--json");
    expect(shown.code).toBe(0);
    const document = JSON.parse(shown.out);
    expect(document).toMatchObject({ id: user.userId, phone: user.phone, balance: "1.9999", disabledAt: null, toolApprovals: [], openHolds: [] });
    expect(document.keys).toEqual([expect.objectContaining({ id: user.keyId, key: `tg_…${user.secret.slice(-4)}`, status: "active", spent: "0.0001" })]);
    expect(document.lastCalls).toEqual([expect.objectContaining({ tool: "echo", status: "succeeded", amount: "0.0001" })]);
    expect(document.lastFailures).toEqual([
      { requestId: refused.headers["x-request-id"], tool: "no-such-tool", httpStatus: 404, code: "unknown_tool", message: expect.any(String), at: expect.any(String) },
    ]);
    expect(shown.out).not.toContain(user.secret);

    const text = await cli("users", "show", user.phone);
    expect(text.out).toMatch(/^id +\d+$/m);
    expect(text.out).toMatch(/^balance +1\.9999$/m);
    expect(text.out).toMatch(/^keys +#\d+ tg_…\S{4} active spent 0\.0001 "ops"$/m);
    expect(text.out).toMatch(/^prepaid units +none$/m);
    // One unit reads as one, as every other count the CLI prints.
    expect(text.out).toMatch(/^last calls +\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} \+08:00 echo succeeded 1 unit 0\.0001 \S+$/m);
    expect(text.out).toMatch(/^last failures +\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} \+08:00 no-such-tool 404 unknown_tool \S+$/m);
  });

  it("lists the prepaid units a user has left", async () => {
    const user = await userWithKey("1");
    const terms = { toolId: "echo", packageId: "starter", name: "Starter", units: 10, price: 1n, validDays: 30 };
    await grantPackage(t.database.db, { userId: user.userId, terms, count: 1, at: t.clock.now(), idempotencyKey: "show-lots" });
    const document = JSON.parse((await cli("users", "show", String(user.userId), "--json")).out);
    expect(document.lots).toEqual([expect.objectContaining({ tool: "echo", source: "grant", name: "Starter", unitsLeft: 10, unitsGranted: 10 })]);
    const text = (await cli("users", "show", String(user.userId))).out;
    expect(text).toMatch(/^prepaid units +lot #\d+ echo grant "Starter" 10\/10 until \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} \+08:00$/m);
    // A granted package is not a tool approval: the line about approvals says none, under a name that cannot be read as packages.
    expect(text).toMatch(/^tool approvals +none$/m);
    expect(text).not.toMatch(/^grants /m);
    expect(document.grants).toBeUndefined();
  });

  it("says so for an unknown user and for a wrong number of words", async () => {
    const unknown = await cli("users", "show", "987654321");
    expect(unknown).toMatchObject({ code: 1, err: 'no user with phone or id "987654321"' });
    expect((await cli("users", "show")).code).toBe(64);
  });

  it("answers as users find does: words that can name no user exit 64, a phone or id of nobody exits 1", async () => {
    for (const words of ["abc", "alice@example.com", "138-0000"]) {
      const show = await cli("users", "show", words);
      const find = await cli("users", "find", words);
      expect([show.code, find.code, show.out], words).toEqual([64, 64, ""]);
      expect(show.err.split("\n")[0], words).toMatch(new RegExp(`^"${words}" names no user: give a phone number or a user id`));
      expect(show.err, words).toMatch(/\nusage: tollgate admin users show /);
    }
    // A masked key is something users find reads (and finds nobody by); users show takes no keys and says where to go.
    expect((await cli("users", "find", "tg_…ZZZZ")).code).toBe(1);
    expect((await cli("users", "show", "tg_…ZZZZ")).err).toMatch(/^"tg_…ZZZZ" names no user: .*users find also takes .* an API key or a masked key/);
    for (const words of ["13000000999", "987654"]) {
      expect([(await cli("users", "show", words)).code, (await cli("users", "find", words)).code], words).toEqual([1, 1]);
    }
  });
});

describe("tollgate admin users disable and enable", () => {
  it("a disabled user cannot sign in, their sessions end, their keys are refused with a code of their own; enabling undoes it; the ledger is untouched", async () => {
    const user = await userWithKey("1");
    expect((await echo(user.secret)).statusCode).toBe(200);
    expect((await cli("users", "disable", String(user.userId))).code).toBe(64);

    const disabled = await cli("users", "disable", String(user.userId), "--reason", "chargeback on order 1234");
    expect(disabled).toMatchObject({ code: 0 });
    const refused = await echo(user.secret);
    expect(refused.statusCode).toBe(403);
    expect(refused.json().error.code).toBe("account_disabled");
    expect((await t.app.inject({ url: "/api/v1/tools/user-info", headers: user.headers })).statusCode).toBe(401);

    const login = phoneLoginClient(t);
    const sent = await login.requestCode(user.phone);
    expect(sent.json().status).toBe("success");
    const signIn = await login.login(user.phone, login.latestCode(user.phone));
    expect(signIn.statusCode).toBe(403);
    expect(signIn.json()).toMatchObject({ code: "account_disabled" });

    const again = await cli("users", "disable", String(user.userId), "--reason", "twice");
    expect(again.code).toBe(1);
    expect(again.err).toMatch(/disabled already/);
    expect(JSON.parse((await cli("users", "show", String(user.userId), "--json")).out)).toMatchObject({ disabledReason: "chargeback on order 1234" });

    expect((await cli("users", "enable", String(user.userId))).code).toBe(0);
    expect((await echo(user.secret)).statusCode).toBe(200);
    expect((await cli("users", "enable", String(user.userId))).code).toBe(1);
    expect(await balanceOf(user.userId)).toBe(999_800n);
    expect((await verifyLedger(t.database.db)).problems).toEqual([]);
  });

  it("reaches a second server on the same database: its cached key is refused too", async () => {
    const other = await createTestApp({}, { database: t.database, clock: t.clock });
    try {
      const user = await userWithKey("1");
      const call = () => other.app.inject({ method: "POST", url: "/v1/tools/echo", payload: {}, headers: { authorization: `Bearer ${user.secret}` } });
      expect((await call()).statusCode).toBe(200);
      expect((await cli("users", "disable", user.phone, "--reason", "abuse")).code).toBe(0);
      // The other server hears of the change through the key-change notice (PostgreSQL NOTIFY; on PGlite, in-process).
      let status = (await call()).statusCode;
      for (let tries = 0; status !== 403 && tries < 100; tries++) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        status = (await call()).statusCode;
      }
      expect(status).toBe(403);
    } finally {
      await other.close();
    }
  });
});

describe("tollgate admin debit", () => {
  it("takes money off a balance once per --idempotency-key, refuses more than the balance, and says how to take money off when given a negative credit", async () => {
    const user = await userWithKey("3");
    const taken = await cli("debit", String(user.userId), "1.25", "--reason", "correction of ticket 9", "--idempotency-key", "ticket-9-fix");
    expect(taken.code).toBe(0);
    expect(taken.out).toMatch(/took 1\.25 from user \d+ .*; balance now 1\.75/);
    expect((await cli("debit", String(user.userId), "1.25", "--reason", "correction of ticket 9", "--idempotency-key", "ticket-9-fix")).out).toMatch(/already debited/);
    const tooMuch = await cli("debit", String(user.userId), "2", "--reason", "too much");
    expect(tooMuch.code).toBe(1);
    expect(tooMuch.err).toBe(`user ${user.userId}'s balance is 1.75, less than 2.00: nothing was taken`);
    const negative = await cli("credit", String(user.userId), "-5", "--reason", "x");
    expect(negative.code).toBe(64);
    expect(negative.err).toContain('"-5": amounts and counts are never negative: to take money off a balance, use `tollgate admin debit`');
    expect(await balanceOf(user.userId)).toBe(1_750_000n);
    expect((await verifyLedger(t.database.db)).problems).toEqual([]);
  });
});

describe("tollgate admin audit", () => {
  it("records every command run, with its words, exit code and the account it ran as; a reason may start with a minus sign when written --reason=…", async () => {
    const user = await createUserWithSession(t, { balance: "1" });
    expect((await cli("credit", String(user.userId), "0.5", "--reason=-5% goodwill", "--idempotency-key", "audit-test")).code).toBe(0);
    expect((await cli("users", "show", "424242424")).code).toBe(1);
    const audit = await cli("audit", "--limit", "2", "--json");
    expect(audit.code).toBe(0);
    const [last, first] = JSON.parse(audit.out) as { command: string; argv: string[]; exitCode: number; hostUser: string }[];
    expect(first).toMatchObject({ command: "credit", argv: ["credit", String(user.userId), "0.5", "--reason=-5% goodwill", "--idempotency-key", "audit-test"], exitCode: 0, hostUser: os.userInfo().username });
    expect(last).toMatchObject({ command: "users show", exitCode: 1 });
    const table = await cli("audit", "--limit", "3");
    expect(table.out.split("\n")[0]).toMatch(/^AT +WHO +EXIT +COMMAND$/);
    expect(table.out).toContain(`credit ${user.userId} 0.5 "--reason=-5% goodwill" --idempotency-key audit-test`);
    const sudoUser = process.env.SUDO_USER;
    process.env.SUDO_USER = "alice";
    try {
      expect((await cli("ledger", "verify")).code).toBe(0);
    } finally {
      if (sudoUser === undefined) delete process.env.SUDO_USER;
      else process.env.SUDO_USER = sudoUser;
    }
    const [bySudo] = JSON.parse((await cli("audit", "--limit", "1", "--json")).out) as { hostUser: string; host: string }[];
    expect(bySudo).toEqual(expect.objectContaining({ hostUser: `alice (sudo as ${os.userInfo().username})`, host: os.hostname() }));
    expect((await cli("audit", "--limit", "0")).code).toBe(64);
    expect((await cli("audit", "--limit", "ten")).code).toBe(64);
  });

  it("help lists every command aligned with examples, and each command's help shows its usage and examples", async () => {
    const help = await cli("--help");
    expect(help.code).toBe(0);
    expect(help.out).toMatch(/^ {2}users disable +stop a user/m);
    const listed = help.out.slice(help.out.indexOf("commands:\n") + 10, help.out.indexOf("\n\nexamples:")).split("\n");
    expect(listed.filter((line) => /^ {2}\S/.test(line)).map((line) => line.slice(2, 22).trim())).toEqual(COMMANDS.map((c) => c.name));
    // Every summary, and every line it wraps onto, starts in the same column, within 100 columns.
    expect(new Set(listed.map((line) => /^ {2}(?:\S+(?: \S+)?)? +/.exec(line)![0].length))).toEqual(new Set([24]));
    expect(Math.max(...help.out.split("\n").map((line) => line.length))).toBeLessThanOrEqual(100);
    expect(help.out).toContain("examples:\n  tollgate admin users find 13800138000\n");
    expect(help.out).toContain("\n  tollgate admin codes create --amount 50 --count 100 > codes.txt\n");
    for (const command of COMMANDS) {
      const one = await cli(...command.name.split(" "), "--help");
      expect([command.name, one.code]).toEqual([command.name, 0]);
      expect(one.out).toMatch(new RegExp(`^usage: tollgate admin ${command.name.replace(/ /g, " ")}`));
      expect(one.out).toContain(`examples:\n  tollgate admin ${command.examples[0]}`);
    }
    // Asking for help runs nothing.
    expect(await cli("users", "disable", "1", "--help")).toMatchObject({ code: 0 });
  });

  it("keeps no API key or redemption code an operator pasted: they are written masked, as the console shows them", async () => {
    const user = await userWithKey("1");
    expect((await cli("users", "find", user.secret)).code).toBe(0);
    expect((await cli("codes", "void", "k7pq 2xmd 9rtw 4hjb 6nce")).code).toBe(1);
    const [voided, found] = JSON.parse((await cli("audit", "--limit", "2", "--json")).out) as { argv: string[] }[];
    expect(found!.argv).toEqual(["users", "find", `tg_…${user.secret.slice(-4)}`]);
    expect(voided!.argv).toEqual(["codes", "void", "****-6NCE"]);
    // Pasted with what surrounds it in a terminal or a header: still masked, the rest kept.
    expect((await cli("users", "find", ` ${user.secret} `)).code).toBe(0);
    await cli("users", "find", `Bearer ${user.secret}`);
    await cli("users", "find", `key=${user.secret}x`);
    await cli("codes", "void", "code: K7PQ-2XMD-9RTW-4HJB-6NCE.");
    const pasted = (JSON.parse((await cli("audit", "--limit", "4", "--json")).out) as { argv: string[] }[]).map((r) => r.argv[2]).reverse();
    const last4 = user.secret.slice(-4);
    expect(pasted).toEqual([` tg_…${last4} `, `Bearer tg_…${last4}`, `key=tg_…${user.secret.slice(-3)}x`, "code: ****-6NCE."]);
    const rows = await t.database.db.select().from(operatorAudit);
    expect(JSON.stringify(rows)).not.toContain(user.secret);
    expect(JSON.stringify(rows)).not.toContain("9RTW");
  });
});

describe("an operator's free text", () => {
  const TEXT_RULE = "must not contain control characters, tabs, line breaks or text-direction marks";
  const UNSAFE = ["\u001b[31mRED\u001b[0m \u202eevil", "line one\nline two", "a\ttab", "a\u2028b", "lone \ud800 half"];
  const credits = async (user: TestUser) => (await t.app.inject({ url: "/api/v1/console/credits", headers: user.headers })).json().items as unknown[];
  const creditsCsv = async (user: TestUser) => (await t.app.inject({ url: "/api/v1/console/credits.csv", headers: user.headers })).body;

  it("a reason with control characters, line breaks, tabs or text-direction marks is refused naming --reason, and the user reads nothing of it", async () => {
    const user = await createUserWithSession(t, { balance: "1" });
    for (const reason of UNSAFE) {
      for (const direction of ["credit", "debit"]) {
        const refused = await cli(direction, String(user.userId), "0.01", "--reason", reason, "--idempotency-key", `text-${direction}`);
        expect([reason, refused.code, refused.out]).toEqual([reason, 64, ""]);
        expect(refused.err.split("\n")[0]).toBe(reason.includes("\ud800") ? "--reason: must be valid Unicode text" : `--reason: ${TEXT_RULE}`);
      }
    }
    expect(await balanceOf(user.userId)).toBe(1_000_000n);
    const before = await credits(user);
    expect(before.map((c) => (c as { method: string }).method)).not.toContain("adjustment");
    const csv = await creditsCsv(user);
    for (const trace of ["RED", "evil", "\u001b", "\u202e"]) expect(csv).not.toContain(trace);
    // The same words without the controls are taken, and read back as typed.
    expect((await cli("credit", String(user.userId), "0.01", "--reason", "RED evil")).code).toBe(0);
    expect((await credits(user))[0]).toMatchObject({ amount: "0.01", reference: "RED evil" });
  });

  it("a key to repeat an adjustment is held to the same rule", async () => {
    const user = await createUserWithSession(t, { balance: "1" });
    const refused = await cli("credit", String(user.userId), "0.01", "--reason", "x", "--idempotency-key", "ticket\u001b[2J");
    expect([refused.code, refused.err.split("\n")[0]]).toEqual([64, `--idempotency-key: ${TEXT_RULE}`]);
    const grant = await cli("packages", "grant", String(user.userId), "--package", "ocr/starter", "--idempotency-key", "t\n1");
    expect([grant.code, grant.err.split("\n")[0]]).toEqual([64, `--idempotency-key: ${TEXT_RULE}`]);
    expect(await balanceOf(user.userId)).toBe(1_000_000n);
  });

  it("users disable, calls refund and packages refund refuse such a reason before changing anything", async () => {
    const user = await createUserWithSession(t, { balance: "1" });
    const disable = await cli("users", "disable", String(user.userId), "--reason", "chargeback\r\nforged line");
    expect([disable.code, disable.err.split("\n")[0]]).toEqual([64, `--reason: ${TEXT_RULE}`]);
    expect((await t.database.db.select().from(users).where(eq(users.id, user.userId)))[0]!.disabledAt).toBeNull();
    const call = await cli("calls", "refund", "0b6f8c2e-5d1a-4c59-9a57-3e0f5f2d7c11", "--reason", "\u202egarbage");
    expect([call.code, call.err.split("\n")[0]]).toEqual([64, `--reason: ${TEXT_RULE}`]);
    const lot = await cli("packages", "refund", "1", "--reason", "retired\u0007");
    expect([lot.code, lot.err.split("\n")[0]]).toEqual([64, `--reason: ${TEXT_RULE}`]);
  });
});

describe("secrets in what an operator typed", () => {
  it("a redemption code typed as separate words is voided and kept masked in the audit log", async () => {
    const created = await cli("codes", "create", "--amount", "1", "--count", "1");
    expect(created.code).toBe(0);
    const code = created.out.trim();
    const words = code.toLowerCase().split("-");
    expect(words).toHaveLength(5);
    const voided = await cli("codes", "void", ...words);
    expect([voided.code, voided.out]).toEqual([0, "voided 1 code: they can no longer be redeemed"]);
    const again = await cli("codes", "void", ...code.split("-"));
    expect([again.code, again.err]).toEqual([1, "the code was not voided: it is void already"]);
    const [second, first] = JSON.parse((await cli("audit", "--limit", "2", "--json")).out) as { argv: string[] }[];
    const mask = `****-${code.slice(-4)}`;
    expect(first!.argv).toEqual(["codes", "void", mask]);
    expect(second!.argv).toEqual(["codes", "void", mask]);
    // Run into other words, spaced or dashed: masked, the rest kept.
    await cli("codes", "void", "code:", ...words.slice(0, 2), `${words.slice(2).join(" ")}.`);
    const [pasted] = JSON.parse((await cli("audit", "--limit", "1", "--json")).out) as { argv: string[] }[];
    expect(pasted!.argv).toEqual(["codes", "void", "code:", `${mask}.`]);
    const rows = JSON.stringify(await t.database.db.select().from(operatorAudit));
    for (const group of code.split("-").slice(0, 4)) expect(rows.toUpperCase()).not.toContain(group);
  });

  it("a request id is no redemption code: the audit keeps it whole", async () => {
    const requestId = "2b6f8c2e-5d3a-4c59-9a57-3e4f5f2d7c22";
    await cli("calls", "show", requestId);
    const [row] = JSON.parse((await cli("audit", "--limit", "1", "--json")).out) as { argv: string[] }[];
    expect(row!.argv).toEqual(["calls", "show", requestId]);
  });

  it("the start of an API key is kept only as its public prefix, in the audit log and on stderr", async () => {
    const user = await userWithKey("1");
    const start = user.secret.slice(0, 20);
    const found = await cli("users", "find", start);
    expect(found.code).toBe(64);
    expect(found.err.split("\n")[0]).toBe('"tg_…" names no user: give a phone number, 4 or more of its digits, a user id, an API key or a masked key (tg_…wxyz)');
    const [row] = JSON.parse((await cli("audit", "--limit", "1", "--json")).out) as { argv: string[] }[];
    expect(row!.argv).toEqual(["users", "find", "tg_…"]);
    // The console's masked form is no secret and is kept as typed.
    const masked = `tg_…${user.secret.slice(-4)}`;
    expect((await cli("users", "find", masked)).code).toBe(0);
    const [maskedRow] = JSON.parse((await cli("audit", "--limit", "1", "--json")).out) as { argv: string[] }[];
    expect(maskedRow!.argv).toEqual(["users", "find", masked]);
    const rows = JSON.stringify(await t.database.db.select().from(operatorAudit));
    expect(rows).not.toContain(user.secret.slice(3, 12));
  });

  it("an error message that repeats an operator's words masks a key or code among them", async () => {
    const user = await userWithKey("1");
    const masked = `tg_…${user.secret.slice(-4)}`;
    const credit = await cli("credit", user.secret, "0.01", "--reason", "x");
    expect([credit.code, credit.err.split("\n")[0]]).toEqual([64, `"${masked}" names no user: give a phone number or a user id (users find also takes 4 or more digits of a phone, an API key or a masked key)`]);
    const show = await cli("users", "show", `Bearer ${user.secret}`);
    expect([show.code, show.err.split("\n")[0]]).toEqual([64, `"Bearer ${masked}" names no user: give a phone number or a user id (users find also takes 4 or more digits of a phone, an API key or a masked key)`]);
    const unknown = await cli(user.secret.slice(0, 20));
    expect(unknown.code).toBe(64);
    expect(unknown.err.split("\n")[0]).toBe("unknown command: tg_…");
    const amount = await cli("credit", String(user.userId), "K7PQ-2XMD-9RTW-4HJB-6NCE", "--reason", "x");
    expect([amount.code, amount.err.split("\n")[0]]).toEqual([64, '"****-6NCE" is not a positive amount such as 50 or 9.90']);
    for (const run of [credit, show, unknown, amount]) expect(run.err).not.toMatch(new RegExp(`${user.secret.slice(3, 12)}|2XMD`));
    // Help is not an operator's words: its example code stays whole.
    expect((await cli("codes")).err).toContain("codes void K7PQ-2XMD-9RTW-4HJB-6NCE");
  });
});
