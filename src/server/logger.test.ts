import { PassThrough } from "node:stream";
import pino from "pino";
import { describe, expect, it, vi } from "vitest";
import { loadConfig } from "./config";
import { loggerOptions, prettyLog } from "./logger";

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
