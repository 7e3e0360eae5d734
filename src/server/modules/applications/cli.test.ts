import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { unsafeTextProblem } from "#shared/text";
import { runCli } from "../../cli/run";
import { toolApplications } from "../../db/schema/index";
import { createTestApp, type TestApp } from "../../testing/test-app";
import { createUserWithSession } from "../../testing/users";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

async function admin(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(["admin", ...argv], { database: t.database, config: t.config, clock: t.clock, out: (l) => out.push(l), err: (l) => err.push(l) });
  return { code, out: out.join("\n"), err: err.join("\n") };
}

async function applyAs(phone: string, project: string): Promise<number> {
  const user = await createUserWithSession(t, { phone });
  const res = await t.app.inject({
    method: "POST",
    url: "/api/v1/console/applications",
    headers: user.headers,
    payload: { toolId: "pinyin", companyOrProject: project, useCase: `Pinyin for ${project}, with tone marks.`, expectedMonthlyCalls: 1500, contact: "+86 139 0000 1111" },
  });
  expect(res.statusCode).toBe(201);
  return res.json().id;
}

const applicationsOf = async (phone: string) => (await admin("applications", "list", "--status", "all")).out.split("\n").filter((l) => l.includes(phone));

describe("tollgate admin applications", () => {
  it("says so when nothing is pending", async () => {
    const empty = await admin("applications", "list");
    expect(empty).toEqual({ code: 0, out: "", err: "no pending applications" });
  });

  it("lists pending applications oldest first with time, masked phone, tool, project, expected calls and contact", async () => {
    const first = await applyAs("13800000001", "Alpha Labs");
    t.clock.advance(90_000);
    const second = await applyAs("13800000002", "Beta Books");
    const listed = await admin("applications", "list");
    expect(listed.code).toBe(0);
    const lines = listed.out.split("\n");
    expect(lines[0]).toMatch(/^ID\s+APPLIED\s+PHONE\s+TOOL\s+PROJECT\s+CALLS\/MONTH\s+CONTACT\s+STATUS\s+REVIEWED\s+NOTE\s+USE CASE$/);
    expect(lines[1]).toMatch(
      new RegExp(`^${first}\\s+2026-03-01 16:00:00 \\+08:00\\s+138\\*{4}0001\\s+pinyin\\s+Alpha Labs\\s+1500\\s+\\+86 139 0000 1111\\s+pending\\s+-\\s+-\\s+Pinyin for Alpha Labs, with tone marks\\.$`),
    );
    expect(lines[2]).toMatch(new RegExp(`^${second}\\s+2026-03-01 16:01:30 \\+08:00\\s+138\\*{4}0002\\s+pinyin\\s+Beta Books\\s+`));
    expect(lines).toHaveLength(3);
    expect(lines[0]!.indexOf("USE CASE")).toBe(lines[1]!.indexOf("Pinyin for"));
    expect(listed.out).not.toContain("13800000001");
  });

  it("approves and rejects pending ones; --status filters the list and shows the review", async () => {
    const approveMe = await applyAs("13800000011", "Gamma");
    const rejectMe = await applyAs("13800000012", "Delta");
    expect((await admin("applications", "approve", String(approveMe), "--note", "welcome aboard")).code).toBe(0);
    expect((await admin("applications", "reject", String(rejectMe), "--note", "  no volume given  ")).code).toBe(0);

    const pending = await admin("applications", "list");
    expect(pending.out).not.toContain("Gamma");
    expect(pending.out).not.toContain("Delta");
    const approved = await admin("applications", "list", "--status", "approved");
    expect(approved.out).toContain("Gamma");
    expect(approved.out).toMatch(/ approved\s+2026-03-01 \d\d:\d\d:\d\d \+08:00\s+welcome aboard\s+Pinyin for Gamma/);
    expect(approved.out).not.toContain("Delta");
    const rejected = await admin("applications", "list", "--status", "rejected");
    expect(rejected.out).toMatch(/ rejected\s+2026-03-01 \d\d:\d\d:\d\d \+08:00\s+no volume given\s+Pinyin for Delta/);

    const json = await admin("applications", "list", "--status", "rejected", "--json");
    expect(json.code).toBe(0);
    expect(JSON.parse(json.out)).toEqual([
      expect.objectContaining({ id: rejectMe, phone: "138****0012", tool: "pinyin", project: "Delta", status: "rejected", reviewerNote: "no volume given", reviewedAt: expect.stringMatching(/^2026-03-01T\d\d:\d\d:\d\d\.\d{3}Z$/) }),
    ]);
    const pendingJson: { project: string; status: string }[] = JSON.parse((await admin("applications", "list", "--status", "pending", "--json")).out);
    expect(pendingJson.length).toBeGreaterThan(0);
    expect(pendingJson.filter((a) => a.status !== "pending" || ["Gamma", "Delta"].includes(a.project))).toEqual([]);
    expect(await applicationsOf("138****0012")).toHaveLength(1);
  });

  it("refuses to review an application twice, or one that does not exist, with exit code 1", async () => {
    const id = await applyAs("13800000021", "Epsilon");
    expect((await admin("applications", "approve", String(id))).code).toBe(0);
    const twice = await admin("applications", "approve", String(id));
    expect(twice.code).toBe(1);
    expect(twice.err).toMatch(new RegExp(`^application ${id} was already approved at 2026-03-01 \\d\\d:\\d\\d:\\d\\d \\+08:00: only pending applications can be reviewed$`));
    const rejectApproved = await admin("applications", "reject", String(id), "--note", "changed my mind");
    expect(rejectApproved.code).toBe(1);
    expect(rejectApproved.err).toContain("already approved");
    expect((await admin("applications", "list", "--status", "approved")).out).toContain("Epsilon");
    expect((await admin("applications", "list", "--status", "rejected")).out).not.toContain("Epsilon");

    const missing = await admin("applications", "approve", "999999");
    expect(missing).toMatchObject({ code: 1, err: "there is no application 999999" });
  });

  it("needs a note to reject, one numeric id, and a known status (usage errors, exit code 64)", async () => {
    const id = await applyAs("13800000031", "Zeta");
    const noNote = await admin("applications", "reject", String(id));
    expect(noNote.code).toBe(64);
    expect(noNote.err).toContain("--note is required");
    const blankNote = await admin("applications", "reject", String(id), "--note", "   ");
    expect(blankNote.code).toBe(64);
    const word = await admin("applications", "approve", "abc");
    expect([word.code, word.err.split("\n")[0]]).toEqual([64, '"abc" is not an application id (a whole number; applications list shows them)']);
    const none = await admin("applications", "approve");
    expect([none.code, none.err.split("\n")[0]]).toEqual([64, "give one application id (applications list shows them)"]);
    expect((await admin("applications", "approve", "-3")).err.split("\n")[0]).toBe('"-3": an id is never negative');
    expect((await admin("applications", "reject", String(id), "--note", "x".repeat(501))).code).toBe(64);
    const badStatus = await admin("applications", "list", "--status", "done");
    expect(badStatus.code).toBe(64);
    expect(badStatus.err).toContain("--status: one of pending, approved, rejected, all");
    expect(await applicationsOf("138****0031")).toEqual([expect.stringMatching(/Zeta\s+1500\s+.*pending\s+-\s+-\s+Pinyin for Zeta/)]);
  });
});

describe("text from applicants reaches the operator's terminal escaped (issue 23 §11)", () => {
  it("prints control characters, escape sequences and bidi controls stored by an older version as visible escapes", async () => {
    const user = await createUserWithSession(t, { phone: "13800000099" });
    await t.database.db.insert(toolApplications).values({
      userId: user.userId,
      toolId: "pinyin",
      companyOrProject: "Acme\n8  2026-03-01 08:00Z  138****0000  pinyin  Trusted Bank Ltd  1  a@b.co  approved\r",
      useCase: "clear\u001b[2J hide\u001b[8m bidi\u202eevil",
      expectedMonthlyCalls: 5,
      contact: "\u001b]8;;https://evil.test\u0007a@b.co\u001b]8;;\u0007",
      createdAt: t.clock.now(),
    });
    const listed = await admin("applications", "list", "--status", "all");
    expect(listed.code).toBe(0);
    expect([...listed.out].filter((char) => char !== "\n" && unsafeTextProblem(char) !== null)).toEqual([]);
    expect(listed.out.split("\n").filter((line) => line.includes("Trusted Bank Ltd"))).toHaveLength(1);
    expect(listed.out).toContain("Acme\\n8  2026-03-01");
    expect(listed.out).toContain("Ltd  1  a@b.co  approved\\r");
    expect(listed.out).toContain("clear\\x1b[2J hide\\x1b[8m bidi\\u202eevil");
    expect(listed.out).toContain("\\x1b]8;;https://evil.test\\x07a@b.co");
  });

  it("refuses a reviewer note with control characters", async () => {
    const id = await applyAs("13800000098", "Epsilon");
    const res = await admin("applications", "reject", String(id), "--note", "see \u001b[2J");
    expect(res.code).toBe(64);
    expect(res.err).toMatch(/--note: must not contain control characters/);
  });
});
