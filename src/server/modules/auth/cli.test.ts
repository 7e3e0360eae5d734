import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../../cli/run";
import { createTestApp, type TestApp } from "../../testing/test-app";
import { createUserWithSession } from "../../testing/users";
import { createSession } from "./sessions";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

async function cli(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(["admin", ...argv], { database: t.database, config: t.config, clock: t.clock, out: (l) => out.push(l), err: (l) => err.push(l) });
  return { code, out, err: err.join("\n") };
}

const userInfo = async (authorization: string) => (await t.app.inject({ url: "/api/v1/tools/user-info", headers: { authorization } })).statusCode;

describe("tollgate admin sessions", () => {
  it("lists a user's live sessions and revokes them all, by phone or by id, leaving other users signed in", async () => {
    const user = await createUserWithSession(t, { phone: "13600005001" });
    const second = await createSession(t.database.db, { userId: user.userId, ip: "10.50.0.2", userAgent: "second browser", now: t.clock.now() });
    const bystander = await createUserWithSession(t);

    const listed = await cli("sessions", "list", "+86 136 0000 5001");
    expect(listed.code).toBe(0);
    expect(listed.out).toHaveLength(3);
    expect(listed.out[0]).toMatch(/^ID\s+CREATED\s+EXPIRES\s+IP\s+USER AGENT$/);
    expect(listed.out[1]).toMatch(new RegExp(`^${second.sessionId}\\s+2026-03-01 16:00:00 \\+08:00\\s+\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d \\+08:00\\s+10\\.50\\.0\\.2\\s+second browser$`));
    expect(listed.err).toBe(`2 live sessions of user ${user.userId} (136****5001)`);
    expect(listed.out.join("\n")).not.toContain(user.token);
    const json = await cli("sessions", "list", "13600005001", "--json");
    expect(json.err).toBe("");
    expect(JSON.parse(json.out.join("\n"))).toEqual([
      { id: second.sessionId, createdAt: "2026-03-01T08:00:00.000Z", expiresAt: expect.stringMatching(/Z$/), ip: "10.50.0.2", userAgent: "second browser" },
      expect.objectContaining({ id: expect.any(Number) }),
    ]);

    const revoked = await cli("sessions", "revoke", String(user.userId));
    expect(revoked.code).toBe(0);
    expect(revoked.out).toEqual([`ended 2 sessions of user ${user.userId} (136****5001)`]);
    expect(await userInfo(user.headers.authorization)).toBe(401);
    expect(await userInfo(`Bearer ${second.token}`)).toBe(401);
    expect(await userInfo(bystander.headers.authorization)).toBe(200);
    expect(await cli("sessions", "list", "13600005001")).toMatchObject({ out: [], err: `0 live sessions of user ${user.userId} (136****5001)` });
  });

  it("says so for an unknown user and refuses a missing one", async () => {
    const unknown = await cli("sessions", "revoke", "13000000000");
    expect(unknown.code).toBe(1);
    expect(unknown.err).toBe('no user with phone or id "13000000000"');
    expect((await cli("sessions", "revoke")).code).toBe(64);
  });
});
