import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../../cli/run";
import { createTestApp, type TestApp } from "../../testing/test-app";
import { createUserWithSession, type TestUser } from "../../testing/users";

// The default catalog: pinyin needs approval, echo and qrcode do not.
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const APPLICATION = {
  toolId: "pinyin",
  companyOrProject: "  Lantern Reader  ",
  useCase: "Annotating children's books with pinyin for our reading app.",
  expectedMonthlyCalls: 20000,
  contact: " dev@lantern.example ",
};

const apply = (user: TestUser, body: object = APPLICATION) =>
  t.app.inject({ method: "POST", url: "/api/v1/console/applications", headers: user.headers, payload: body });
const listOf = async (user: TestUser) => {
  const res = await t.app.inject({ url: "/api/v1/console/applications", headers: user.headers });
  expect(res.statusCode).toBe(200);
  return res.json() as { applications: Array<Record<string, unknown>>; tools: Array<Record<string, unknown>> };
};

async function admin(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(["admin", ...argv], { database: t.database, config: t.config, clock: t.clock, out: (l) => out.push(l), err: (l) => err.push(l) });
  return { code, out: out.join("\n"), err: err.join("\n") };
}

async function funded(): Promise<{ user: TestUser; secret: string }> {
  const user = await createUserWithSession(t, { balance: "1" });
  const res = await t.app.inject({ method: "POST", url: "/api/v1/console/keys", headers: user.headers, payload: { name: "reader" } });
  expect(res.statusCode).toBe(201);
  return { user, secret: res.json().secret };
}

const callPinyin = (secret: string) =>
  t.app.inject({
    method: "POST",
    url: "/v1/tools/pinyin",
    headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
    payload: JSON.stringify({ text: "你好" }),
  });

describe("GET /console/applications", () => {
  it("needs a session", async () => {
    const res = await t.app.inject({ url: "/api/v1/console/applications" });
    expect(res.statusCode).toBe(401);
  });

  it("lists the tools that need approval and where the user stands; no applications yet", async () => {
    const user = await createUserWithSession(t);
    expect(await listOf(user)).toEqual({
      applications: [],
      tools: [{ id: "pinyin", name: "Pinyin", description: expect.stringContaining("Pinyin"), hasAccess: false, pending: false }],
    });
  });
});

describe("applying", () => {
  it("files a pending application, trimmed, and lists it newest first", async () => {
    const user = await createUserWithSession(t);
    const res = await apply(user);
    expect(res.statusCode).toBe(201);
    const created = res.json();
    expect(created).toEqual({
      id: expect.any(Number),
      toolId: "pinyin",
      toolName: "Pinyin",
      companyOrProject: "Lantern Reader",
      useCase: APPLICATION.useCase,
      expectedMonthlyCalls: 20000,
      contact: "dev@lantern.example",
      status: "pending",
      reviewerNote: null,
      createdAt: t.clock.now().toISOString(),
      reviewedAt: null,
    });
    const list = await listOf(user);
    expect(list.applications).toEqual([created]);
    expect(list.tools[0]).toMatchObject({ id: "pinyin", hasAccess: false, pending: true });
  });

  it.each([
    [{ toolId: undefined }, "toolId: choose the tool you are applying for"],
    [{ companyOrProject: "   " }, "companyOrProject: company or project is required"],
    [{ companyOrProject: "x" }, "companyOrProject: company or project must be at least 2 characters"],
    [{ companyOrProject: "x".repeat(101) }, "companyOrProject: company or project must be at most 100 characters"],
    [{ useCase: "for fun" }, "useCase: use case must be at least 10 characters"],
    [{ useCase: "x".repeat(2001) }, "useCase: use case must be at most 2000 characters"],
    [{ expectedMonthlyCalls: 0 }, "expectedMonthlyCalls: expected monthly calls must be greater than 0"],
    [{ expectedMonthlyCalls: -5 }, "expectedMonthlyCalls: expected monthly calls must be greater than 0"],
    [{ expectedMonthlyCalls: 2.5 }, "expectedMonthlyCalls: expected monthly calls must be a whole number such as 10000"],
    [{ expectedMonthlyCalls: "1000" }, "expectedMonthlyCalls: expected monthly calls must be a whole number such as 10000"],
    [{ expectedMonthlyCalls: undefined }, "expectedMonthlyCalls: expected monthly calls is required"],
    [{ expectedMonthlyCalls: 1e13 }, "expectedMonthlyCalls: expected monthly calls must be at most 1000000000000"],
    [{ contact: "" }, "contact: contact is required"],
    [{ contact: "call me maybe" }, "contact: contact must be a phone number or an e-mail address"],
    [{ contact: "12345" }, "contact: contact must be a phone number or an e-mail address"],
  ])("refuses %j with a message naming the field", async (change, message) => {
    const user = await createUserWithSession(t);
    const res = await apply(user, { ...APPLICATION, ...change });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ code: "validation_failed", message });
    expect((await listOf(user)).applications).toEqual([]);
  });

  it.each(["+86 139 1234 5678", "010-8888 6666", "13912345678", "ops@example.com"])("takes %s as a contact", async (contact) => {
    const user = await createUserWithSession(t);
    expect((await apply(user, { ...APPLICATION, contact })).statusCode).toBe(201);
  });

  it("refuses an unknown tool and a tool that needs no approval", async () => {
    const user = await createUserWithSession(t);
    const unknown = await apply(user, { ...APPLICATION, toolId: "teleport" });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json()).toEqual({ code: "tool_not_applicable", message: 'there is no tool "teleport"' });
    const open = await apply(user, { ...APPLICATION, toolId: "echo" });
    expect(open.statusCode).toBe(400);
    expect(open.json()).toEqual({ code: "tool_not_applicable", message: "Echo needs no approval: every API key may call it" });
    expect((await listOf(user)).applications).toEqual([]);
  });

  it("allows one pending application per tool per user, also when they race", async () => {
    const user = await createUserWithSession(t);
    const results = await Promise.all(Array.from({ length: 5 }, () => apply(user)));
    expect(results.map((r) => r.statusCode).sort()).toEqual([201, 400, 400, 400, 400]);
    for (const refused of results.filter((r) => r.statusCode === 400)) {
      expect(refused.json()).toEqual({
        code: "application_already_pending",
        message: "you already have a pending application for Pinyin: wait for its review",
      });
    }
    expect((await listOf(user)).applications).toHaveLength(1);

    const other = await createUserWithSession(t);
    expect((await apply(other)).statusCode).toBe(201);
  });

  it("shows each user only their own applications", async () => {
    const alice = await createUserWithSession(t);
    const bob = await createUserWithSession(t);
    const mine = (await apply(alice, { ...APPLICATION, companyOrProject: "Alice's project" })).json();
    expect((await listOf(bob)).applications).toEqual([]);
    expect((await listOf(alice)).applications).toEqual([mine]);
    const approved = await admin("applications", "approve", String(mine.id));
    expect(approved.code).toBe(0);
    expect((await listOf(bob)).tools[0]).toMatchObject({ hasAccess: false, pending: false });
  });
});

describe("review by the operator", () => {
  it("an approval lets the user's keys call the tool at once; before it the gateway says 403 tool_not_approved", async () => {
    const { user, secret } = await funded();
    const { id } = (await apply(user)).json();

    const before = await callPinyin(secret);
    expect(before.statusCode).toBe(403);
    expect(before.json().error.code).toBe("tool_not_approved");

    t.clock.advance(3_600_000);
    const approved = await admin("applications", "approve", String(id));
    expect(approved).toMatchObject({ code: 0, err: "" });
    expect(approved.out).toMatch(new RegExp(`^approved application ${id}: user ${user.userId} \\(139\\*{4}\\d{4}\\) may now call pinyin$`));

    const after = await callPinyin(secret);
    expect(after.statusCode).toBe(200);
    expect(after.json()).toMatchObject({ pinyin: "nǐ hǎo", characters: 2 });
    expect(after.headers["x-tollgate-cost"]).toBe("0.00004");

    const list = await listOf(user);
    expect(list.applications[0]).toMatchObject({ id, status: "approved", reviewerNote: null, reviewedAt: t.clock.now().toISOString() });
    expect(list.tools[0]).toMatchObject({ hasAccess: true, pending: false });

    const again = await apply(user);
    expect(again.statusCode).toBe(400);
    expect(again.json()).toEqual({ code: "tool_access_already_granted", message: "you already have access to Pinyin" });
  });

  it("a rejection shows its note; the tool stays closed and the user may apply again", async () => {
    const { user, secret } = await funded();
    const { id } = (await apply(user)).json();
    const rejected = await admin("applications", "reject", String(id), "--note", "Please tell us which app this is for.");
    expect(rejected.code).toBe(0);
    expect(rejected.out).toContain(`rejected application ${id} of user ${user.userId}`);

    const list = await listOf(user);
    expect(list.applications[0]).toMatchObject({
      id,
      status: "rejected",
      reviewerNote: "Please tell us which app this is for.",
      reviewedAt: t.clock.now().toISOString(),
    });
    expect(list.tools[0]).toMatchObject({ hasAccess: false, pending: false });
    expect((await callPinyin(secret)).json().error.code).toBe("tool_not_approved");

    t.clock.advance(60_000);
    const second = await apply(user, { ...APPLICATION, useCase: "The Lantern Reader app for iOS, annotating picture books." });
    expect(second.statusCode).toBe(201);
    expect((await listOf(user)).applications.map((a) => [a.id, a.status])).toEqual([
      [second.json().id, "pending"],
      [id, "rejected"],
    ]);
  });
});
