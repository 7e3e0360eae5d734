import type { FastifyPluginAsync } from "fastify";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { queryRows } from "../db/client";
import { AppError } from "../errors";
import { startKeyedRequest, type IdempotencyRefusals } from "../lib/idempotent-request";
import { refuseUpdates } from "../testing/faults";
import { createTestApp, type TestApp } from "../testing/test-app";

/** A fixture action with a visible side effect: it counts how often it really ran. */
let runs = 0;
const counterRoutes: FastifyPluginAsync = async (api) => {
  api.post("/test/counter", async (request) => {
    runs += 1;
    const body = request.body as { fail?: boolean } | undefined;
    if (body?.fail) throw AppError.badRequest("asked to fail");
    return { run: runs, secret: `shown-once-${runs}` };
  });
  api.post("/test/counter/:id", async (request) => {
    runs += 1;
    return { run: runs, id: (request.params as { id: string }).id };
  });
};

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({}, { extraApiRoutes: [counterRoutes] });
});
afterAll(() => t.close());
beforeEach(() => {
  runs = 0;
});

/** A signed-out browser: its login cookie is the caller a key belongs to. */
const BROWSER = "b".repeat(43);
const post = (key: string | undefined, body: object = {}, browser: string | null = BROWSER) =>
  t.app.inject({
    method: "POST",
    url: "/api/v1/test/counter",
    payload: body,
    headers: key ? { "idempotency-key": key } : {},
    cookies: browser ? { login_client: browser } : {},
  });

describe("Idempotency-Key", () => {
  it("replays the first response to a repeated key without running the action again", async () => {
    const first = await post("key-replay-0001");
    const second = await post("key-replay-0001");
    expect(first.statusCode).toBe(200);
    expect(second.statusCode).toBe(200);
    expect(second.json()).toEqual(first.json());
    expect(second.headers["idempotent-replayed"]).toBe("true");
    expect(runs).toBe(1);
  });

  it("replays a signed-out request only to the browser that made it; without the login cookie, a key is not kept", async () => {
    const first = await post("key-browser-01");
    const otherBrowser = await post("key-browser-01", {}, "c".repeat(43));
    expect(otherBrowser.headers["idempotent-replayed"]).toBeUndefined();
    expect(otherBrowser.json()).toEqual({ run: 2, secret: "shown-once-2" });
    const noCookie = await post("key-browser-01", {}, null);
    expect(noCookie.headers["idempotent-replayed"]).toBeUndefined();
    expect(await post("key-browser-02", {}, null)).toMatchObject({ statusCode: 200 });
    expect((await post("key-browser-02", {}, null)).headers["idempotent-replayed"]).toBeUndefined();
    expect(runs).toBe(5);
    expect((await post("key-browser-01")).json()).toEqual(first.json());
  });

  it("runs every request without a key", async () => {
    await post(undefined);
    await post(undefined);
    expect(runs).toBe(2);
  });

  it("refuses a key reused with a different body", async () => {
    await post("key-mismatch-01", { a: 1 });
    const res = await post("key-mismatch-01", { a: 2 });
    expect(res.statusCode).toBe(422);
    expect(res.json().code).toBe("idempotency_key_reused");
    expect(runs).toBe(1);
  });

  it("refuses a key reused on another resource of the same route, with the same body", async () => {
    const at = (id: string, query = "") =>
      t.app.inject({ method: "POST", url: `/api/v1/test/counter/${id}${query}`, payload: {}, headers: { "idempotency-key": "key-other-path" }, cookies: { login_client: BROWSER } });
    expect((await at("3")).json()).toEqual({ run: 1, id: "3" });
    expect((await at("3")).headers["idempotent-replayed"]).toBe("true");
    const other = await at("4");
    expect(other.statusCode).toBe(422);
    expect(other.json().code).toBe("idempotency_key_reused");
    expect((await at("3", "?force=1")).statusCode).toBe(422);
    expect(runs).toBe(1);
  });

  it("lets a failed request be retried with the same key", async () => {
    const failed = await post("key-failure-01", { fail: true });
    expect(failed.statusCode).toBe(400);
    const again = await post("key-failure-01", { fail: true });
    expect(again.statusCode).toBe(400);
    expect(runs).toBe(2);
  });

  it("runs concurrent duplicates once: the others wait with 409 and then get the replay", async () => {
    const results = await Promise.all(Array.from({ length: 5 }, () => post("key-concurrent-1")));
    const statuses = results.map((r) => r.statusCode).sort();
    expect(statuses.filter((s) => s === 200).length).toBeGreaterThanOrEqual(1);
    expect(statuses.every((s) => s === 200 || s === 409)).toBe(true);
    expect(runs).toBe(1);
    const later = await post("key-concurrent-1");
    expect(later.statusCode).toBe(200);
    expect(later.json().run).toBe(1);
  });

  it("keeps keys for 24 hours, then forgets them", async () => {
    await post("key-expiry-0001");
    t.clock.advance(23 * 3600 * 1000);
    expect((await post("key-expiry-0001")).json().run).toBe(1);
    t.clock.advance(2 * 3600 * 1000);
    const afterExpiry = await post("key-expiry-0001");
    expect(afterExpiry.statusCode).toBe(200);
    expect(afterExpiry.json().run).toBe(2);
  });

  it("stores the response sealed, never in clear", async () => {
    await post("key-sealed-0001");
    const rows = await queryRows(t.database.db, sql`select sealed_response from idempotency_keys where key = 'key-sealed-0001'`);
    expect(rows).toHaveLength(1);
    const stored = JSON.stringify(rows);
    expect(stored).not.toContain("shown-once");
  });

  it("answers an action that ran even when its replay copy cannot be stored, and never runs it again for that key", async () => {
    const restore = await refuseUpdates(t.database.db, "idempotency_keys", "new.key = 'key-unkept-0001'");
    try {
      const first = await post("key-unkept-0001");
      expect(first.statusCode).toBe(200);
      expect(first.json()).toEqual({ run: 1, secret: "shown-once-1" });
      const retry = await post("key-unkept-0001");
      expect(retry.statusCode).toBe(409);
      expect(retry.json().code).toBe("idempotency_in_progress");
    } finally {
      await restore();
    }
    expect(runs).toBe(1);
    expect(t.logs()).toContain("could not keep an answer for replay");
  });

  it("rejects a malformed key with a clear message, in the gateway's code for it", async () => {
    const res = await post("bad key!");
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ code: "invalid_idempotency_key", message: "Idempotency-Key must be 8 to 128 letters, digits, '-' or '_'" });
    expect(runs).toBe(0);
  });

  it("rejects a malformed key also from a signed-out request without the login cookie, whose key would not be kept", async () => {
    const res = await post("bad key!", {}, null);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: "invalid_idempotency_key", message: expect.stringMatching(/Idempotency-Key/) });
    expect(runs).toBe(0);
  });
});

describe("a keyed request's claim, which both route families go through (lib/idempotent-request.ts)", () => {
  const refusals: IdempotencyRefusals = {
    invalidKey: () => new Error("invalid key"),
    reused: () => new Error("reused"),
    inProgress: () => new Error("in progress"),
  };
  const answer = { statusCode: 201, contentType: "application/json", body: Buffer.from('{"made":1}').toString("base64") };
  const start = (key: string, requestId: string) =>
    startKeyedRequest(t.app.idempotency, refusals, { scope: "user:0", key, route: "POST /made", fingerprint: "{}", now: t.clock.now(), requestId });
  const running = async (key: string, requestId: string) => {
    const started = await start(key, requestId);
    if (!("run" in started)) throw new Error(`${key} was not claimed`);
    return started.run;
  };

  it("ends once: released, the key runs again; kept, every retry gets the answer; an ended claim refuses another end", async () => {
    const first = await running("machine-0001", "first");
    await expect(start("machine-0001", "while-running")).rejects.toThrow("in progress");
    await first.release();
    await expect(first.keep(answer)).rejects.toThrow("cannot go from released to kept");
    const second = await running("machine-0001", "second");
    await second.keep(answer);
    await expect(second.release()).rejects.toThrow("cannot go from kept to released");
    expect(await start("machine-0001", "retry")).toEqual({ replay: answer });
  });

  it("a streamed answer that began is refused as in progress until its end keeps or frees it", async () => {
    const streamed = await running("machine-0002", "stream");
    await streamed.begin(200);
    await expect(streamed.begin(200)).rejects.toThrow("cannot go from begun to begun");
    await expect(start("machine-0002", "while-streaming")).rejects.toThrow("in progress");
    await streamed.settle(null, t.app.log);
    expect("run" in (await start("machine-0002", "after-stream"))).toBe(true);
  });

  it("still holds its claim when its answer could not be kept, so that it can be freed after all", async () => {
    const keyed = await running("machine-0003", "unkept");
    const restore = await refuseUpdates(t.database.db, "idempotency_keys", "new.key = 'machine-0003'");
    try {
      await expect(keyed.keep(answer)).rejects.toThrow();
    } finally {
      await restore();
    }
    await expect(start("machine-0003", "retry-while-held")).rejects.toThrow("in progress");
    await keyed.release();
    expect("run" in (await start("machine-0003", "retry-after-release"))).toBe(true);
  });
});
