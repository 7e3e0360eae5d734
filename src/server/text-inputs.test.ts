import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "./testing/test-app";
import { createUserWithSession, type TestUser } from "./testing/users";

/* Issue 23 §2, §11, §14: every typed text field refuses what cannot be stored or shown safely, with a 400 naming the field. */

let t: TestApp;
let user: TestUser;

beforeAll(async () => {
  t = await createTestApp();
  user = await createUserWithSession(t);
});
afterAll(() => t.close());

const send = (method: "GET" | "POST" | "PATCH", url: string, payload?: object) => t.app.inject({ method, url, payload, headers: user.headers });

function expectRefused(res: Awaited<ReturnType<typeof send>>, field: string) {
  expect(res.statusCode).toBe(400);
  expect(res.json()).toEqual({ code: "validation_failed", message: expect.stringMatching(new RegExp(`^${field}: must `)) });
}

const application = { toolId: "pinyin", companyOrProject: "Acme Labs", useCase: "Pinyin for our reading app.", expectedMonthlyCalls: 1000, contact: "dev@acme.test" };
const OSC8_LINK = "\u001b]8;;https://evil.test\u0007dev@acme.test\u001b]8;;\u0007";

describe("API key names", () => {
  it.each([
    ["a NUL", "build\u0000server"],
    ["a line break", "x\n=1+1"],
    ["a carriage return", "x\r=1+1"],
    ["a tab", "x\t=1+1"],
    ["an escape sequence", "\u001b[2Jci"],
    ["a bidi override", "ci\u202eyek"],
  ])("refuses %s when a key is created", async (_what, name) => {
    expectRefused(await send("POST", "/api/v1/console/keys", { name }), "name");
  });

  it("refuses a NUL when a key is renamed, and keeps the old name", async () => {
    const created = await send("POST", "/api/v1/console/keys", { name: "ci" });
    expect(created.statusCode).toBe(201);
    const id = created.json().key.id;
    expectRefused(await send("PATCH", `/api/v1/console/keys/${id}`, { name: "c\u0000i" }), "name");
    expect((await send("GET", "/api/v1/console/keys")).json().keys[0].name).toBe("ci");
  });
});

describe("access applications", () => {
  it.each([
    ["companyOrProject", "Acme\u0000"],
    ["companyOrProject", "Acme\n7  2026-01-01 08:00Z  138****0000  pinyin  Trusted Bank Ltd  approved"],
    ["useCase", "Pinyin for our\u0000 reading app."],
    ["useCase", "Pinyin for our reading app.\u001b[8m hidden"],
    ["contact", OSC8_LINK],
    ["contact", "dev@acme.test\u202e"],
    ["toolId", "pinyin\u0000"],
  ])("refuses %s with an unsafe character", async (field, value) => {
    expectRefused(await send("POST", "/api/v1/console/applications", { ...application, [field]: value }), field);
  });

  it("still takes a use case written on several lines", async () => {
    const res = await send("POST", "/api/v1/console/applications", { ...application, useCase: "Pinyin for our reading app.\nAbout 1000 calls a month." });
    expect(res.statusCode).toBe(201);
    expect(res.json().useCase).toBe("Pinyin for our reading app.\nAbout 1000 calls a month.");
  });
});

describe("sign-in", () => {
  it("refuses a NUL in recommendCode", async () => {
    const res = await t.app.inject({ method: "POST", url: "/api/v1/auth/phone/login", payload: { telephone: "13800000000", code: "123456", recommendCode: "ab\u0000" } });
    expectRefused(res, "recommendCode");
  });

  it("refuses a NUL in the phone number", async () => {
    const res = await t.app.inject({ method: "POST", url: "/api/v1/auth/phone/login", payload: { telephone: "1380000\u00000000", code: "123456" } });
    expectRefused(res, "telephone");
  });
});

describe("billing, charges and redemption", () => {
  it("refuses a NUL in the billing filter's toolId", async () => {
    expectRefused(await send("GET", "/api/v1/console/billing?toolId=a%00"), "toolId");
  });

  it("answers billing.csv?toolId=a%00 with a complete 400, not a cut 200", async () => {
    const res = await send("GET", "/api/v1/console/billing.csv?toolId=a%00");
    expectRefused(res, "toolId");
  });

  it("refuses a NUL in a cursor", async () => {
    expectRefused(await send("GET", "/api/v1/console/credits?cursor=%00"), "cursor");
    expectRefused(await send("GET", "/api/v1/console/billing?cursor=x%00"), "cursor");
  });

  it("refuses a NUL in a redemption code", async () => {
    expectRefused(await send("POST", "/api/v1/console/redeem", { code: "ABCD\u0000EFGH" }), "code");
  });
});
