import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serializeError } from "./log-errors";
import { createTestApp, type TestApp } from "./testing/test-app";
import { createUserWithSession, type TestUser } from "./testing/users";

/* Issue 23 §4: a failed query is logged by its statement and its error, never by its values. */

let t: TestApp;
let user: TestUser;

beforeAll(async () => {
  t = await createTestApp();
  user = await createUserWithSession(t);
});
afterAll(() => t.close());

/** Makes inserts into `table` fail with a detail that quotes the row, as a unique violation's does. */
async function failInserts(table: string, detail: string): Promise<() => Promise<void>> {
  const name = `fail_insert_${table}_${process.pid}`;
  await t.database.db.execute(
    sql.raw(`create function ${name}() returns trigger language plpgsql as $$ begin raise exception 'injected fault' using detail = ${detail}; end $$`),
  );
  await t.database.db.execute(sql.raw(`create trigger ${name} before insert on ${table} for each row execute function ${name}()`));
  return async () => {
    await t.database.db.execute(sql.raw(`drop trigger ${name} on ${table}`));
    await t.database.db.execute(sql.raw(`drop function ${name}()`));
  };
}

describe("failed queries in the log", () => {
  it("carry the statement and the error, not the contact, the use case or the row", async () => {
    const lift = await failInserts("tool_applications", `'Failing row contains (' || new.contact || ', ' || new.use_case || ')'`);
    try {
      const res = await t.app.inject({
        method: "POST",
        url: "/api/v1/console/applications",
        headers: user.headers,
        payload: { toolId: "pinyin", companyOrProject: "Secret Project Falcon", useCase: "Confidential use case words", expectedMonthlyCalls: 5, contact: "private.person@example.org" },
      });
      expect(res.statusCode).toBe(500);
    } finally {
      await lift();
    }
    const line = t.logs().split("\n").find((l) => l.includes("injected fault"));
    expect(line).toBeDefined();
    const logged = JSON.parse(line!);
    expect(logged.err.message).toMatch(/^Failed query: insert into "tool_applications" .* values \(default, \$1, \$2/);
    expect(logged.err.cause).toMatchObject({ message: "injected fault", code: "P0001" });
    expect(line).not.toContain("private.person@example.org");
    expect(line).not.toContain("Confidential use case words");
    expect(line).not.toContain("Secret Project Falcon");
    expect(line).not.toMatch(/"params"|params:/);
  });

  it("carry no API key hash nor last four characters", async () => {
    const lift = await failInserts("api_keys", `'Key (key_hash, last4)=(' || new.key_hash || ', ' || new.last4 || ')'`);
    try {
      const res = await t.app.inject({ method: "POST", url: "/api/v1/console/keys", headers: user.headers, payload: { name: "logged" } });
      expect(res.statusCode).toBe(500);
    } finally {
      await lift();
    }
    const line = t.logs().split("\n").find((l) => l.includes("injected fault") && l.includes("api_keys"));
    expect(line).toBeDefined();
    expect(line).not.toMatch(/[0-9a-f]{64}/);
    expect(line).not.toContain("Key (key_hash");
  });
});

describe("serializeError", () => {
  it("hides the value a data exception's message quotes, and keeps the code and the constraint", () => {
    const cause = Object.assign(new Error('invalid input syntax for type bigint: "13800001234"'), { code: "22P02", severity: "ERROR", detail: "x", where: "y" });
    const failed = Object.assign(new Error('Failed query: select 1 where id = $1\nparams: 13800001234'), { query: "select 1 where id = $1", params: ["13800001234"], cause });
    const logged = JSON.stringify(serializeError(failed));
    expect(logged).not.toContain("13800001234");
    expect(logged).toContain("select 1 where id = $1");
    expect(logged).toContain("22P02");
    expect(logged).toContain("invalid input syntax for type bigint");
  });

  it("leaves other errors as pino logs them", () => {
    expect(serializeError(new Error("boom"))).toMatchObject({ type: "Error", message: "boom" });
  });
});
