import { PassThrough } from "node:stream";
import pino from "pino";
import { describe, expect, it, vi } from "vitest";
import { loadConfig } from "./config";
import { loggerOptions, prettyLog, requestLogger } from "./logger";

const config = loadConfig({ NODE_ENV: "test", LOG_LEVEL: "info" });

describe("the server log", () => {
  it("is JSON lines when standard output is not a terminal, and pretty when it is", () => {
    expect(loggerOptions(config, undefined, false)).not.toHaveProperty("stream");
    expect(loggerOptions(config, undefined, true)).toHaveProperty("stream");
  });

  it("reads, pretty: Beijing time with its offset, the level in words, fields below, secrets still redacted", async () => {
    const out = new PassThrough();
    let text = "";
    out.on("data", (chunk: Buffer) => (text += chunk.toString()));
    const { redact } = loggerOptions(config, undefined, false) as { redact: pino.LoggerOptions["redact"] };
    const log = pino({ redact }, prettyLog(out));
    log.info({ port: 3000, req: { headers: { authorization: "Bearer secret-token" } } }, "ready");
    await vi.waitFor(() => expect(text).toContain("port"));
    expect(text).toMatch(/^\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d \+08:00\] INFO: ready\n {4}port: 3000\n/);
    expect(text).not.toContain("secret-token");
    expect(text).toContain("[redacted]");
  });
});

describe("a request's logger", () => {
  const lines = () => {
    const written: Record<string, unknown>[] = [];
    const parent = pino({ level: "info", redact: ["req.headers.authorization"] }, { write: (line: string) => written.push(JSON.parse(line) as Record<string, unknown>) });
    return { parent, written };
  };

  it("writes what pino's child would, with the request id and redaction, at the levels it keeps", () => {
    const { parent, written } = lines();
    const log = requestLogger(parent, { reqId: "r-1" }, {});
    log.debug("dropped");
    log.info({ req: { headers: { authorization: "Bearer secret" } } }, "kept");
    log.child({ part: "x" }).warn("from a child");
    expect(written.map(({ reqId, msg, level }) => ({ reqId, msg, level }))).toEqual([
      { reqId: "r-1", msg: "kept", level: 30 },
      { reqId: "r-1", msg: "from a child", level: 40 },
    ]);
    expect(JSON.stringify(written)).not.toContain("secret");
  });

  it("keeps a route's own level (logLevel), and follows a level set on it", () => {
    const { parent, written } = lines();
    const log = requestLogger(parent, { reqId: "r-2" }, { level: "warn" });
    expect(log.level).toBe("warn");
    log.info("below the route's level");
    log.error("an error");
    log.level = "silent";
    log.fatal("silenced");
    expect(written.map(({ msg }) => msg)).toEqual(["an error"]);
  });
});
