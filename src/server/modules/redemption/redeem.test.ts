import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { queryRows } from "../../db/client";
import { runCli } from "../../cli/run";
import { adminCli } from "../../testing/admin-cli";
import { metricsGrowth, TEST_METRICS_TOKEN } from "../../testing/metrics";
import { createTestApp, type TestApp } from "../../testing/test-app";
import { createUserWithSession, type TestUser } from "../../testing/users";
import { verifyLedger } from "../ledger/verify";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({
    REFERRAL_BONUS_PERCENT: "10",
    REDEEM_FAILURES_PER_USER_PER_HOUR: "5",
    REDEEM_FAILURES_PER_IP_PER_HOUR: "8",
    METRICS_TOKEN: TEST_METRICS_TOKEN,
  });
});
afterAll(() => t.close());

async function createCodes(args: string[]): Promise<{ code: number; codes: string[]; summary: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(["admin", "codes", "create", ...args], {
    database: t.database,
    config: t.config,
    clock: t.clock,
    out: (l) => out.push(l),
    err: (l) => err.push(l),
  });
  return { code, codes: out, summary: err.join("\n") };
}

let ipCounter = 0;
/** Each test speaks from its own address, so the per-IP limit only bites where a test means it to. */
const freshIp = () => `10.0.${Math.floor(++ipCounter / 250)}.${ipCounter % 250}`;

const redeem = (user: TestUser, code: string, ip = "10.9.9.9") =>
  t.app.inject({ method: "POST", url: "/api/v1/console/redeem", headers: user.headers, payload: { code }, remoteAddress: ip });

const balanceOf = async (user: TestUser) =>
  (await t.app.inject({ method: "GET", url: "/api/v1/tools/user-info", headers: user.headers })).json().balance as string;

const admin = (...argv: string[]) => adminCli(t)(...argv);

describe("tollgate admin codes list, void and export", () => {
  it("lists a batch's codes masked with their states, voids one and then the rest, and a void code cannot be redeemed", async () => {
    const created = await createCodes(["--amount", "2", "--count", "3"]);
    const batch = /batch (\S+),/.exec(created.summary)![1]!;
    const [redeemed, voided, rest] = created.codes as [string, string, string];
    const user = await createUserWithSession(t);
    expect((await redeem(user, redeemed, freshIp())).statusCode).toBe(200);

    const voidOne = await admin("codes", "void", voided);
    expect(voidOne).toMatchObject({ code: 0, out: "voided 1 code: they can no longer be redeemed" });
    expect(await admin("codes", "void", voided)).toMatchObject({ code: 1, err: "the code was not voided: it is void already" });
    expect(await admin("codes", "void", redeemed)).toMatchObject({ code: 1, err: "the code was not voided: it was redeemed already" });
    expect(await admin("codes", "void", "NOPE-NOPE-NOPE-NOPE")).toMatchObject({ code: 1 });
    const refused = await redeem(user, voided, freshIp());
    expect(refused.statusCode).toBe(400);
    expect(refused.json().code).toBe("redemption_code_void");

    const listed = await admin("codes", "list", "--batch", batch, "--json");
    const states = (JSON.parse(listed.out) as { code: string; state: string; redeemedBy: number | null }[]).map((c) => [c.code, c.state, c.redeemedBy]);
    expect(states.sort()).toEqual(
      [
        [`****-${redeemed.slice(-4)}`, "redeemed", user.userId],
        [`****-${voided.slice(-4)}`, "void", null],
        [`****-${rest.slice(-4)}`, "unused", null],
      ].sort(),
    );
    expect(listed.out).not.toContain(rest);
    const unused = await admin("codes", "list", "--batch", batch, "--state", "unused");
    expect(unused.out.split("\n")).toEqual([expect.stringMatching(/^CODE +AMOUNT +BATCH +STATE +CREATED +EXPIRES +REDEEMED BY$/), expect.stringMatching(/^\*{4}-\S{4} +2\.00 +\S+ +unused +2026-03-01 16:00:00 \+08:00 +never +-$/)]);
    expect((await admin("codes", "list", "--state", "spent")).code).toBe(64);

    expect(await admin("codes", "void", "--batch", batch)).toMatchObject({ code: 0, out: "voided 1 code: they can no longer be redeemed" });
    expect((await admin("codes", "void", "--batch", batch)).code).toBe(1);
    expect((await redeem(user, rest, freshIp())).json().code).toBe("redemption_code_void");

    const csv = await admin("codes", "export", "--batch", batch);
    expect(csv.code).toBe(0);
    const lines = csv.out.split("\n");
    expect(lines[0]).toBe("code,amount,batch,state,created_at,expires_at,redeemed_by,redeemed_at,voided_at");
    expect(lines.slice(1).map((l) => l.split(",")[3]).sort()).toEqual(["redeemed", "void", "void"]);
    expect(lines[1]!.split(",")[4]).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+08:00$/);
    expect((await admin("codes", "export")).code).toBe(64);
    expect(await balanceOf(user)).toBe("2.00");
    expect((await verifyLedger(t.database.db)).problems).toEqual([]);
  });

  it("answers a batch no code has alike in list, export and void: exit 1, nothing on stdout, the same sentence", async () => {
    const refusal = { code: 1, out: "", err: 'no code has batch "20990101-nosuch": codes create prints a batch\'s name, codes list shows every batch' };
    expect(await admin("codes", "list", "--batch", "20990101-nosuch")).toEqual(refusal);
    expect(await admin("codes", "list", "--batch", "20990101-nosuch", "--json")).toEqual(refusal);
    expect(await admin("codes", "export", "--batch", "20990101-nosuch")).toEqual(refusal);
    expect(await admin("codes", "void", "--batch", "20990101-nosuch")).toEqual(refusal);
    // A batch that exists but has no code in the state asked for is an answer, not a mistake.
    const created = await createCodes(["--amount", "1", "--count", "1"]);
    const batch = /batch (\S+),/.exec(created.summary)![1]!;
    expect(await admin("codes", "list", "--batch", batch, "--state", "redeemed", "--json")).toMatchObject({ code: 0, out: "[]" });
  });

  it("prints CSV from codes export, its only format, the same with --csv as without it (scripts written from earlier guides pass it)", async () => {
    const created = await createCodes(["--amount", "1", "--count", "2"]);
    const batch = /batch (\S+),/.exec(created.summary)![1]!;
    const csv = await admin("codes", "export", "--batch", batch);
    expect(csv.code).toBe(0);
    expect(csv.out.split("\n")).toHaveLength(3);
    expect(csv.out.split("\n")[0]).toBe("code,amount,batch,state,created_at,expires_at,redeemed_by,redeemed_at,voided_at");
    expect(await admin("codes", "export", "--batch", batch, "--csv")).toMatchObject({ code: 0, out: csv.out });
  });
});

describe("tollgate admin codes create", () => {
  it("refuses a code worth more than OPERATOR_CREDIT_MAX unless --force, as credit does, and makes no code", async () => {
    const refused = await createCodes(["--amount", "100000", "--count", "3"]);
    expect(refused).toMatchObject({ code: 64, codes: [] });
    expect(refused.summary.split("\n")[0]).toBe("--amount 100000 is more than one code may be worth (10000.00, OPERATOR_CREDIT_MAX): check the amount, or add --force");
    expect((await admin("codes", "list", "--json")).out).not.toContain('"amount": "100000.00"');
    const forced = await createCodes(["--amount", "100000", "--count", "1", "--force"]);
    expect([forced.code, forced.codes.length]).toEqual([0, 1]);
    expect((await createCodes(["--amount", "10000", "--count", "1"])).code).toBe(0);
  });

  it("prints long codes in an unambiguous alphabet and stores only their hashes", async () => {
    const { code, codes, summary } = await createCodes(["--amount", "50", "--count", "5"]);
    expect(code).toBe(0);
    expect(codes).toHaveLength(5);
    expect(new Set(codes).size).toBe(5);
    for (const c of codes) expect(c).toMatch(/^[2-9A-HJKMNP-Z]{4}(-[2-9A-HJKMNP-Z]{4}){4}$/);
    expect(summary).toMatch(/created 5 codes of 50.00 each/);
    const stored = JSON.stringify(await queryRows(t.database.db, sql`select * from redemption_codes`));
    for (const c of codes) {
      expect(stored).not.toContain(c);
      expect(stored).not.toContain(c.replace(/-/g, ""));
    }
  });

  it("refuses bad arguments with a usage message", async () => {
    expect((await createCodes(["--amount", "0", "--count", "5"])).code).toBe(64);
    expect((await createCodes(["--amount", "1e3", "--count", "5"])).code).toBe(64);
    expect((await createCodes(["--amount", "5", "--count", "0"])).code).toBe(64);
    expect((await createCodes(["--amount", "5", "--count", "2", "--expires", "2020-01-01"])).code).toBe(64);
    expect((await createCodes(["--amount", "5", "--count", "2", "--expires", "2027-02-30"])).code).toBe(64);
  });

  it("says an amount finer than the micro-unit has too many decimal places, in codes create and credit alike", async () => {
    const codes = await createCodes(["--amount", "1.0000001", "--count", "1"]);
    expect([codes.code, codes.summary.split("\n")[0]]).toEqual([64, '--amount: "1.0000001" has more than 6 decimal places: amounts are kept to the micro-unit (0.000001)']);
    const user = await createUserWithSession(t);
    const credit = await admin("credit", String(user.userId), "1.0000001", "--reason", "x");
    expect([credit.code, credit.err.split("\n")[0]]).toEqual([64, '"1.0000001" has more than 6 decimal places: amounts are kept to the micro-unit (0.000001)']);
    expect((await admin("credit", String(user.userId), "-1.5", "--reason", "x")).code).toBe(64);
    expect((await createCodes(["--amount", "0", "--count", "1"])).summary.split("\n")[0]).toBe('--amount: "0" is not a positive amount such as 50 or 9.90');
  });

  it("reads --count in plain digits only, as amounts are read", async () => {
    for (const count of ["1e3", "0x10", "+5", " 5", "1_000", "5.0", "10001"]) {
      const refused = await createCodes(["--amount", "5", "--count", count]);
      expect(refused.code, count).toBe(64);
      expect(refused.summary, count).toContain("--count: a whole number from 1 to 10000 is required, in plain digits");
      expect(refused.codes).toEqual([]);
    }
  });

  it("reads --expires in Beijing time whatever the machine's zone: a date to its end, a time as given", async () => {
    const zone = process.env.TZ;
    process.env.TZ = "America/New_York";
    try {
      const atTime = await createCodes(["--amount", "5", "--count", "1", "--expires", "2027-01-01T18:00"]);
      expect(atTime.summary).toContain("valid until 2027-01-01 18:00:00 +08:00");
      const atDay = await createCodes(["--amount", "5", "--count", "1", "--expires", "2027-01-01"]);
      expect(atDay.summary).toContain("valid until 2027-01-01 23:59:59 +08:00");
      const explicit = await createCodes(["--amount", "5", "--count", "1", "--expires", "2027-01-01T18:00Z"]);
      expect(explicit.summary).toContain("valid until 2027-01-02 02:00:00 +08:00");
      expect((await createCodes(["--amount", "5", "--count", "1", "--expires", "2027-01-01T25:00"])).code).toBe(64);
    } finally {
      if (zone === undefined) delete process.env.TZ;
      else process.env.TZ = zone;
    }
  });
});

describe("POST /api/v1/console/redeem", () => {
  it("credits the code's amount once, and then the code is used", async () => {
    const user = await createUserWithSession(t);
    const [code] = (await createCodes(["--amount", "50", "--count", "1"])).codes;
    const res = await redeem(user, code!.toLowerCase().replace(/-/g, " "), freshIp());
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ amount: "50.00", balance: "50.00", reference: `****-${code!.slice(-4)}` });
    expect(await balanceOf(user)).toBe("50.00");

    const again = await redeem(user, code!, freshIp());
    expect(again.statusCode).toBe(400);
    expect(again.json()).toEqual({ code: "redemption_code_used", message: "you have already redeemed this code" });
    const other = await createUserWithSession(t);
    const byOther = await redeem(other, code!, freshIp());
    expect(byOther.json()).toEqual({ code: "redemption_code_used", message: "this redemption code has already been used" });
    expect(await balanceOf(user)).toBe("50.00");
    expect(await balanceOf(other)).toBe("0.00");
  });

  it("counts each redemption in the metrics with the money it credited, and not a refused one", async () => {
    const user = await createUserWithSession(t);
    const [code] = (await createCodes(["--amount", "12.345678", "--count", "1"])).codes;
    const samples = ['tollgate_topups_total{channel="redemption"}', 'tollgate_topup_micros_total{channel="redemption"}'];
    expect(await metricsGrowth(t.app, samples, () => redeem(user, code!, freshIp()))).toEqual({ [samples[0]!]: 1, [samples[1]!]: 12_345_678 });
    expect(await metricsGrowth(t.app, samples, () => redeem(user, code!, freshIp()))).toEqual({ [samples[0]!]: 0, [samples[1]!]: 0 });
  });

  it("tells an unknown code and an expired code apart", async () => {
    const user = await createUserWithSession(t);
    const unknown = await redeem(user, "AAAA-BBBB-CCCC-DDDD-EEEE", freshIp());
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().code).toBe("redemption_code_unknown");
    const garbage = await redeem(user, "hello", freshIp());
    expect(garbage.json().code).toBe("redemption_code_unknown");

    const [code] = (await createCodes(["--amount", "5", "--count", "1", "--expires", "2026-03-02"])).codes;
    t.clock.advance(2 * 24 * 3600 * 1000);
    const expired = await redeem(user, code!, freshIp());
    expect(expired.statusCode).toBe(400);
    expect(expired.json()).toEqual({ code: "redemption_code_expired", message: "this redemption code has expired" });
    expect(await balanceOf(user)).toBe("0.00");
    const listed = JSON.parse((await admin("codes", "list", "--state", "expired", "--json")).out) as { code: string; state: string; expiresAt: string }[];
    expect(listed).toContainEqual(expect.objectContaining({ code: `****-${code!.slice(-4)}`, state: "expired", expiresAt: "2026-03-02T15:59:59.999Z" }));
    expect(JSON.parse((await admin("codes", "list", "--state", "unused", "--json")).out)).not.toContainEqual(expect.objectContaining({ code: `****-${code!.slice(-4)}` }));
  });

  it("requires a session", async () => {
    const res = await t.app.inject({ method: "POST", url: "/api/v1/console/redeem", payload: { code: "AAAA" } });
    expect(res.statusCode).toBe(401);
  });

  it("gives a code to exactly one of many users redeeming it at the same moment", async () => {
    const [code] = (await createCodes(["--amount", "20", "--count", "1"])).codes;
    const racers = await Promise.all(Array.from({ length: 8 }, () => createUserWithSession(t)));
    const results = await Promise.all(racers.map((u) => redeem(u, code!, freshIp())));
    expect(results.filter((r) => r.statusCode === 200)).toHaveLength(1);
    expect(results.filter((r) => r.statusCode === 400).every((r) => r.json().code === "redemption_code_used")).toBe(true);
    const balances = await Promise.all(racers.map(balanceOf));
    expect(balances.filter((b) => b === "20.00")).toHaveLength(1);
    expect(balances.filter((b) => b === "0.00")).toHaveLength(7);
    expect((await verifyLedger(t.database.db)).problems).toEqual([]);
  });
});

describe("limits against guessing", () => {
  it("stops a user after 5 failed attempts in an hour, whatever the IP, and lets them in again after the hour", async () => {
    const user = await createUserWithSession(t);
    const [good] = (await createCodes(["--amount", "1", "--count", "1"])).codes;
    for (let i = 0; i < 5; i++) expect((await redeem(user, `GUESS${i}`, freshIp())).statusCode).toBe(400);
    const blocked = await redeem(user, good!, freshIp());
    expect(blocked.statusCode).toBe(429);
    expect(blocked.json().message).toMatch(/too many failed redemption attempts, try again in 60 minutes/);
    expect(Number(blocked.headers["retry-after"])).toBe(3600);
    t.clock.advance(3600 * 1000 + 1);
    expect((await redeem(user, good!, freshIp())).statusCode).toBe(200);
  });

  it("stops an IP after 8 failed attempts across users, for users who have failed too", async () => {
    const ip = freshIp();
    for (let i = 0; i < 8; i++) {
      const u = await createUserWithSession(t);
      expect((await redeem(u, `GUESS${i}`, ip)).statusCode).toBe(400);
    }
    const guesser = await createUserWithSession(t);
    expect((await redeem(guesser, "GUESS", freshIp())).statusCode).toBe(400);
    const refused = await redeem(guesser, "GUESS", ip);
    expect(refused.statusCode).toBe(429);
    expect(refused.json().message).toBe("too many failed redemption attempts, try again in 60 minutes");
    // A newcomer's first attempt goes through; failed, the IP's count holds them back too.
    const newcomer = await createUserWithSession(t);
    expect((await redeem(newcomer, "GUESS", ip)).statusCode).toBe(400);
    expect((await redeem(newcomer, "GUESS", ip)).statusCode).toBe(429);
  });

  it("holds back accounts taking turns from one IP at three times its limit", async () => {
    const ip = freshIp();
    const accounts = await Promise.all(Array.from({ length: 30 }, () => createUserWithSession(t)));
    const statuses: number[] = [];
    for (const [i, u] of accounts.entries()) statuses.push((await redeem(u, `TURN${i}`, ip)).statusCode);
    expect(statuses.filter((s) => s === 400)).toHaveLength(24);
    expect(statuses.slice(24)).toEqual(Array(6).fill(429));
  });

  it("lets an honest user behind the same NAT as a guesser redeem the code they hold", async () => {
    const nat = freshIp();
    const guessers = await Promise.all(Array.from({ length: 2 }, () => createUserWithSession(t)));
    for (const [n, guesser] of guessers.entries()) {
      for (let i = 0; i < 4; i++) expect((await redeem(guesser, `NAT${n}-${i}`, nat)).statusCode).toBe(400);
    }
    expect((await redeem(guessers[0]!, "NAT-MORE", nat)).statusCode).toBe(429);
    const honest = await createUserWithSession(t);
    const [code] = (await createCodes(["--amount", "3", "--count", "1"])).codes;
    expect((await redeem(honest, code!, nat)).statusCode).toBe(200);
    expect(await balanceOf(honest)).toBe("3.00");
  });

  it("lets no more wrong codes through than the limit when a burst of them arrives at once", async () => {
    const user = await createUserWithSession(t);
    const burst = await Promise.all(Array.from({ length: 20 }, (_, i) => redeem(user, `BURST${i}`, freshIp())));
    expect(burst.filter((r) => r.statusCode === 400)).toHaveLength(5);
    expect(burst.filter((r) => r.statusCode === 429)).toHaveLength(15);

    const ip = freshIp();
    // Users who have each failed once elsewhere, so the IP's count applies to them.
    const crowd = await Promise.all(Array.from({ length: 20 }, () => createUserWithSession(t)));
    for (const [i, u] of crowd.entries()) expect((await redeem(u, `BEFORE${i}`, freshIp())).statusCode).toBe(400);
    const fromOneIp = await Promise.all(crowd.map((u, i) => redeem(u, `CROWD${i}`, ip)));
    expect(fromOneIp.filter((r) => r.statusCode === 400)).toHaveLength(8);
    expect(fromOneIp.filter((r) => r.statusCode === 429)).toHaveLength(12);
    const rows = await queryRows<{ reason: string }>(t.database.db, sql`select reason from redemption_failures where ip = ${ip}`);
    expect(rows.map((r) => r.reason)).toEqual(Array(8).fill("redemption_code_unknown"));
  });

  it("does not count successful redemptions", async () => {
    const user = await createUserWithSession(t);
    const { codes } = await createCodes(["--amount", "1", "--count", "7"]);
    const ip = freshIp();
    for (const c of codes) expect((await redeem(user, c, ip)).statusCode).toBe(200);
    expect(await balanceOf(user)).toBe("7.00");
  });
});

describe("referral bonus", () => {
  it("credits the referrer the configured share of a referred user's first top-up, once", async () => {
    const referrer = await createUserWithSession(t);
    const referred = await createUserWithSession(t, { referredBy: referrer.userId });
    const { codes } = await createCodes(["--amount", "50", "--count", "2"]);
    const bonuses = ['tollgate_referral_bonuses_total{channel="redemption"}', 'tollgate_referral_bonus_micros_total{channel="redemption"}'];
    const first = await metricsGrowth(t.app, bonuses, async () => expect((await redeem(referred, codes[0]!, freshIp())).statusCode).toBe(200));
    expect(first).toEqual({ [bonuses[0]!]: 1, [bonuses[1]!]: 5_000_000 });
    expect(await balanceOf(referrer)).toBe("5.00");
    const second = await metricsGrowth(t.app, bonuses, async () => expect((await redeem(referred, codes[1]!, freshIp())).statusCode).toBe(200));
    expect(second).toEqual({ [bonuses[0]!]: 0, [bonuses[1]!]: 0 });
    expect(await balanceOf(referrer)).toBe("5.00");
    expect(await balanceOf(referred)).toBe("100.00");
    const [entry] = await queryRows<{ kind: string; amount: string; reference: string }>(
      t.database.db,
      sql`select kind, amount::text, reference from ledger_entries where user_id = ${referrer.userId}`,
    );
    expect(entry).toEqual({ kind: "referral_bonus", amount: "5000000", reference: expect.stringMatching(/^first top-up of 139\*{4}\d{4}$/) });
  });

  it("pays nothing for users who were not referred, or for operator credits", async () => {
    const referrer = await createUserWithSession(t);
    await createUserWithSession(t, { referredBy: referrer.userId, balance: "30" });
    const loner = await createUserWithSession(t);
    const [code] = (await createCodes(["--amount", "10", "--count", "1"])).codes;
    expect((await redeem(loner, code!, freshIp())).statusCode).toBe(200);
    expect(await balanceOf(referrer)).toBe("0.00");
  });
});
