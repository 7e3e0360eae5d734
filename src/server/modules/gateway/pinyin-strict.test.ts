import fs from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { toolGrants } from "../../db/schema/index";
import { createTestApp, type TestApp } from "../../testing/test-app";
import { createUserWithSession, type TestUser } from "../../testing/users";

/* Issue 23 §7: the pinyin tool's enum is strict, and a call with no billable unit still costs one (decision 018). */

let t: TestApp;
let user: TestUser;
let secret: string;

beforeAll(async () => {
  t = await createTestApp();
  user = await createUserWithSession(t, { balance: "1" });
  await t.database.db.insert(toolGrants).values({ userId: user.userId, toolId: "pinyin", grantedAt: t.clock.now() });
  const created = await t.app.inject({ method: "POST", url: "/api/v1/console/keys", headers: user.headers, payload: { name: "pinyin" } });
  secret = created.json().secret;
});
afterAll(() => t.close());

const pinyin = (body: object) =>
  t.app.inject({ method: "POST", url: "/v1/tools/pinyin", headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" }, payload: body });
const balance = async () => (await t.app.inject({ method: "GET", url: "/api/v1/tools/user-info", headers: user.headers })).json().balance as string;

describe("pinyin", () => {
  it.each(["toString", "__proto__", "constructor", "hasOwnProperty", "valueOf"])("refuses tone %j and charges nothing", async (tone) => {
    const before = await balance();
    const res = await pinyin({ text: "中国", tone });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe("invalid_request");
    expect(await balance()).toBe(before);
  });

  it("takes the documented tones", async () => {
    for (const tone of ["symbol", "num", "none"]) expect((await pinyin({ text: "中", tone })).statusCode).toBe(200);
  });

  it("charges one unit for a text with no Chinese characters", async () => {
    const before = await balance();
    const res = await pinyin({ text: "hello world" });
    expect(res.statusCode).toBe(200);
    expect(res.json().characters).toBe(0);
    expect(res.headers["x-tollgate-cost"]).toBe("0.00002");
    expect(Number(before) - Number(await balance())).toBeCloseTo(0.00002, 8);
  });

  it("its page, in English and Chinese, gives the characters such a text answers (0), not the unit it is charged", async () => {
    expect((await pinyin({ text: "hello" })).json().characters).toBe(0);
    // The row of the response table that describes `characters`, as the reader sees it.
    const row = (file: string) => fs.readFileSync(file, "utf8").split("\n").find((line) => line.startsWith("| `characters` |"))!;
    const en = row("docs/site/tools/pinyin.md");
    const zh = row("docs/site/zh-CN/tools/pinyin.md");
    expect(en).toContain("0 when it has none");
    expect(en).not.toContain("at least one unit when it has none");
    expect(zh).toContain("没有汉字时为 0");
    expect(zh).not.toContain("没有汉字时至少为 1");
  });
});
