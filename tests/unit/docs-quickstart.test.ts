/**
 * The quickstart's examples, exactly as the docs show them in each language, run against the real server:
 * a user with a balance, an API key made through the console API, then curl, Node.js and Python,
 * first on `echo`, then streamed from `chat`, an HTTP tool in front of a local OpenAI-compatible
 * fake that answers with server-sent events.
 */
import { execFile } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DOCS_LANGUAGES, docsTemplateValues, languageSiteDir } from "../../scripts/docs/build-docs";
import { extractExamples, type CodeExample } from "../../scripts/markdown/render";
import { createTestApp, type TestApp } from "../../src/server/testing/test-app";
import { createUserWithSession, type TestUser } from "../../src/server/testing/users";
import { formatMoney, parseMoney } from "../../src/shared/money";
import { fillPlaceholders } from "../../src/shared/template";

const run = promisify(execFile);
const QUICKSTART = Object.fromEntries(
  DOCS_LANGUAGES.map((language) => [language, fs.readFileSync(path.join(languageSiteDir(path.resolve("."), language), "quickstart.md"), "utf8")]),
);
const RUNNERS: Record<string, { file: string; command: (file: string) => [string, string[]] }> = {
  sh: { file: "example.sh", command: (file) => ["bash", [file]] },
  js: { file: "example.mjs", command: (file) => [process.execPath, [file]] },
  // scripts/test.sh points PYTHON at an interpreter that has `requests`.
  python: { file: "example.py", command: (file) => [process.env.PYTHON ?? "python3", [file]] },
};

let t: TestApp;
let user: TestUser;
let apiKey: string;
let examplesIn: Record<string, CodeExample[]>;
let publicUrl: string;
let upstream: http.Server;
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "quickstart-"));
const isStream = (example: CodeExample) => example.flags.some((flag) => flag.endsWith("-stream"));
const CHAT_PRICE = "0.00002";

/** An OpenAI-compatible chat completions stream: one delta, then the usage, then [DONE]. */
function fakeChat(req: http.IncomingMessage, res: http.ServerResponse) {
  req.resume();
  req.on("end", () => {
    if (req.url !== "/v1/chat/completions") return res.writeHead(404).end();
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.write(`data: ${JSON.stringify({ choices: [{ delta: { content: "Hello" } }] })}\n\n`);
    res.write(`data: ${JSON.stringify({ choices: [], usage: { prompt_tokens: 4, completion_tokens: 5, total_tokens: 9 } })}\n\n`);
    res.end("data: [DONE]\n\n");
  });
}

/** The shipped catalog plus a streaming `chat` tool, as an operator would add one. */
function catalogWithChat(upstreamBase: string): string {
  const catalog = JSON.parse(fs.readFileSync(path.resolve("config/tools.json"), "utf8"));
  catalog.tools.push({
    id: "chat",
    name: "Chat",
    description: "An OpenAI-compatible chat completions API.",
    category: "AI",
    price: CHAT_PRICE,
    unit: "token",
    maxUnitsPerCall: 1000,
    handler: { type: "http", url: `${upstreamBase}/`, unitsPath: "usage.total_tokens" },
  });
  const file = path.join(scratch, "tools.json");
  fs.writeFileSync(file, JSON.stringify(catalog));
  return file;
}

beforeAll(async () => {
  upstream = http.createServer(fakeChat);
  await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve));
  t = await createTestApp({ TOOLS_CATALOG: catalogWithChat(`http://127.0.0.1:${(upstream.address() as AddressInfo).port}`) });
  await t.app.listen({ port: 0, host: "127.0.0.1" });
  publicUrl = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  const values = docsTemplateValues({ ...t.config, publicUrl });
  examplesIn = Object.fromEntries(DOCS_LANGUAGES.map((language) => [language, extractExamples(fillPlaceholders(QUICKSTART[language]!, values))]));

  user = await createUserWithSession(t, { balance: "1" });
  const created = await t.app.inject({ method: "POST", url: "/api/v1/console/keys", headers: user.headers, payload: { name: "quickstart" } });
  expect(created.statusCode).toBe(201);
  apiKey = created.json().secret;
});
afterAll(async () => {
  await t.close();
  upstream.close();
  fs.rmSync(scratch, { recursive: true, force: true });
});

async function runExample(example: CodeExample): Promise<string> {
  const runner = RUNNERS[example.lang];
  if (!runner) throw new Error(`no runner for ${example.lang} examples`);
  const file = path.join(scratch, runner.file);
  fs.writeFileSync(file, example.code);
  const [command, args] = runner.command(file);
  const { stdout } = await run(command, args, { env: { ...process.env, API_KEY: apiKey }, timeout: 20_000 });
  return stdout;
}

describe.each(DOCS_LANGUAGES)("the quickstart in %s", (language) => {
  let examples: CodeExample[];
  beforeAll(() => {
    examples = examplesIn[language]!;
  });

  describe("the quickstart's first call", () => {
    it("shows one example each in curl, JavaScript and Python, all calling echo with the key from the environment", () => {
      expect(examples.map((e) => [e.lang, e.flags])).toEqual([
        ["sh", ["example=curl"]],
        ["js", ["example=javascript"]],
        ["python", ["example=python"]],
        ["sh", ["example=curl-stream"]],
        ["js", ["example=javascript-stream"]],
        ["python", ["example=python-stream"]],
      ]);
      for (const example of examples.filter((e) => !isStream(e))) {
        expect(example.code).toContain(`${publicUrl}/v1/tools/echo`);
        expect(example.code).toContain("API_KEY");
      }
    });

    it("runs each example as written: each gets the echo back and is charged the echo price", async () => {
      const price = parseMoney((await t.app.inject({ url: "/api/v1/tools" })).json().tools.find((tool: { id: string }) => tool.id === "echo").price);
      const before = parseMoney((await t.app.inject({ url: "/api/v1/tools/user-info", headers: user.headers })).json().balance);
      for (const example of examples.filter((e) => !isStream(e))) {
        const output = await runExample(example);
        expect(output, example.lang).toMatch(/["']?hello["']?\s*:\s*["']world["']/);
      }
      const info = await t.app.inject({ url: "/api/v1/tools/user-info", headers: user.headers });
      expect(info.json().balance).toBe(formatMoney(before - 3n * price));
    });
  });

  describe("the quickstart's streamed call", () => {
    it("shows curl -N, a JavaScript stream reader and Python stream=True, each calling a streaming tool", () => {
      const streams = examples.filter(isStream);
      expect(streams.map((e) => e.lang)).toEqual(["sh", "js", "python"]);
      for (const example of streams) expect(example.code).toContain(`${publicUrl}/v1/tools/chat/v1/chat/completions`);
      expect(streams[0]!.code).toContain("curl -sS -N");
      expect(streams[2]!.code).toContain("stream=True");
    });

    it("runs each example as written: each prints the events, ending with [DONE], and is charged the reported usage", async () => {
      const before = parseMoney((await t.app.inject({ url: "/api/v1/tools/user-info", headers: user.headers })).json().balance);
      for (const example of examples.filter(isStream)) {
        const output = await runExample(example);
        expect(output, example.lang).toContain('data: {"choices":[{"delta":{"content":"Hello"}}]}');
        expect(output, example.lang).toContain('"total_tokens":9');
        expect(output.trim().endsWith("data: [DONE]"), example.lang).toBe(true);
      }
      const info = await t.app.inject({ url: "/api/v1/tools/user-info", headers: user.headers });
      expect(info.json().balance).toBe(formatMoney(before - 3n * 9n * parseMoney(CHAT_PRICE)));
    }, 120_000);

    it("fails loudly when the key is wrong, so a reader sees the error code", async () => {
      const good = apiKey;
      apiKey = "tg_not-a-real-key";
      try {
        for (const example of examples.filter((e) => e.lang !== "sh")) {
          await expect(runExample(example), example.lang).rejects.toMatchObject({ stderr: expect.stringContaining("invalid_key") });
        }
      } finally {
        apiKey = good;
      }
    }, 120_000);
  });
});
