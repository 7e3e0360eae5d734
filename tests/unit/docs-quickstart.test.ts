/**
 * The quickstart's examples, exactly as the docs show them in each language, run against the real server:
 * a user with a balance, an API key made through the console API, then curl, Node.js and Python,
 * first on `echo`, then streamed from `chat`, an HTTP tool in front of a local OpenAI-compatible
 * fake that answers with server-sent events, then with the official `openai` package at its
 * defaults from `llm`, an OpenAI-compatible tool priced per model in front of the same fake. The
 * Python `openai` package is not run: PyPI cannot be reached from this project's machines and
 * Debian has no python3-openai, so the quickstart shows its two settings but no Python SDK example.
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
// The examples import `openai` as a reader's project would, from a node_modules beside them.
fs.symlinkSync(path.resolve("node_modules"), path.join(scratch, "node_modules"));
const isOpenAi = (example: CodeExample) => example.flags.some((flag) => flag.startsWith("example=openai"));
const isStream = (example: CodeExample) => !isOpenAi(example) && example.flags.some((flag) => flag.endsWith("-stream"));
const isFirstCall = (example: CodeExample) => !isOpenAi(example) && !isStream(example);
const CHAT_PRICE = "0.00002";
/** `llm`'s model: ¥0.15 per 1M input tokens and ¥0.60 per 1M output tokens. */
const LLM_MODEL = { "gpt-4o-mini": { input: "0.15", output: "0.60" } };
/** What the fake reports to `llm`: 1,000 input tokens (150 micro-units) and 500 output tokens (300). */
const LLM_USAGE = { prompt_tokens: 1000, completion_tokens: 500, total_tokens: 1500 };
const LLM_CALL_COST = 450n;

/** Chat Completions as OpenAI answers them: a whole answer, or events with the usage last only when asked for. */
function fakeLlm(body: { stream?: boolean; stream_options?: { include_usage?: boolean } }, res: http.ServerResponse) {
  const base = { id: "chatcmpl-quickstart", created: 1_700_000_000, model: "gpt-4o-mini" };
  if (!body.stream) {
    res.writeHead(200, { "content-type": "application/json" });
    const choice = { index: 0, message: { role: "assistant", content: "Hello" }, finish_reason: "stop" };
    return res.end(JSON.stringify({ ...base, object: "chat.completion", choices: [choice], usage: LLM_USAGE }));
  }
  const event = (value: object) => `data: ${JSON.stringify({ ...base, object: "chat.completion.chunk", ...value })}\n\n`;
  res.writeHead(200, { "content-type": "text/event-stream" });
  res.write(event({ choices: [{ index: 0, delta: { role: "assistant", content: "Hello" }, finish_reason: "stop" }] }));
  if (body.stream_options?.include_usage) res.write(event({ choices: [], usage: LLM_USAGE }));
  res.end("data: [DONE]\n\n");
}

/** An OpenAI-compatible chat completions stream: one delta, then the usage, then [DONE]. */
function fakeChat(req: http.IncomingMessage, res: http.ServerResponse) {
  let body = "";
  req.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")));
  req.on("end", () => {
    if (req.url === "/llm/v1/chat/completions") return fakeLlm(JSON.parse(body), res);
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
  catalog.tools.push({
    id: "llm",
    name: "LLM",
    description: "An OpenAI-compatible LLM, priced per model.",
    category: "AI",
    handler: { type: "http", url: `${upstreamBase}/llm/v1`, protocol: "openai", models: LLM_MODEL },
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
  const values = docsTemplateValues(t.config, publicUrl);
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
        ["js", ["example=openai"]],
        ["js", ["example=openai-stream"]],
      ]);
      for (const example of examples.filter(isFirstCall)) {
        expect(example.code).toContain(`${publicUrl}/v1/tools/echo`);
        expect(example.code).toContain("API_KEY");
      }
    });

    it("runs each example as written: each gets the echo back and is charged the echo price", async () => {
      const price = parseMoney((await t.app.inject({ url: "/api/v1/tools" })).json().tools.find((tool: { id: string }) => tool.id === "echo").price);
      const before = parseMoney((await t.app.inject({ url: "/api/v1/tools/user-info", headers: user.headers })).json().balance);
      for (const example of examples.filter(isFirstCall)) {
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
        for (const example of examples.filter((e) => e.lang !== "sh" && !isOpenAi(e))) {
          await expect(runExample(example), example.lang).rejects.toMatchObject({ stderr: expect.stringContaining("invalid_key") });
        }
      } finally {
        apiKey = good;
      }
    }, 120_000);
  });

  describe("the quickstart's OpenAI SDK calls", () => {
    it("runs the official openai package at its defaults, whole and streamed: each prints the answer and is charged the model's prices for its tokens", async () => {
      const sdk = examples.filter(isOpenAi);
      expect(sdk.map((e) => e.flags[0])).toEqual(["example=openai", "example=openai-stream"]);
      for (const example of sdk) expect(example.code).toContain(`baseURL: "${publicUrl}/v1/tools/llm"`);
      const before = parseMoney((await t.app.inject({ url: "/api/v1/tools/user-info", headers: user.headers })).json().balance);
      for (const example of sdk) expect((await runExample(example)).trim(), example.flags[0]).toBe("Hello");
      const info = await t.app.inject({ url: "/api/v1/tools/user-info", headers: user.headers });
      expect(info.json().balance).toBe(formatMoney(before - 2n * LLM_CALL_COST));
    }, 120_000);

    it("fails loudly with the SDK's error when the model is not one the tool serves", async () => {
      const [whole] = examples.filter(isOpenAi);
      await expect(runExample({ ...whole!, code: whole!.code.replace('"gpt-4o-mini"', '"gpt-unknown"') })).rejects.toMatchObject({
        stderr: expect.stringContaining('400 this tool does not serve the model "gpt-unknown": it serves gpt-4o-mini'),
      });
    }, 60_000);
  });
});
