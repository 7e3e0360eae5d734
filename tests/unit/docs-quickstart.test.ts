/**
 * The quickstart's examples, exactly as the docs show them, run against the real server:
 * a user with a balance, an API key made through the console API, then curl, Node.js and Python.
 */
import { execFile } from "node:child_process";
import fs from "node:fs";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { docsTemplateValues } from "../../scripts/docs/build-docs";
import { extractExamples, type CodeExample } from "../../scripts/markdown/render";
import { createTestApp, type TestApp } from "../../src/server/testing/test-app";
import { createUserWithSession, type TestUser } from "../../src/server/testing/users";
import { formatMoney, parseMoney } from "../../src/shared/money";
import { fillPlaceholders } from "../../src/shared/template";

const run = promisify(execFile);
const QUICKSTART = fs.readFileSync(path.resolve("docs/site/quickstart.md"), "utf8");
const RUNNERS: Record<string, { file: string; command: (file: string) => [string, string[]] }> = {
  sh: { file: "example.sh", command: (file) => ["bash", [file]] },
  js: { file: "example.mjs", command: (file) => [process.execPath, [file]] },
  // scripts/test.sh points PYTHON at an interpreter that has `requests`.
  python: { file: "example.py", command: (file) => [process.env.PYTHON ?? "python3", [file]] },
};

let t: TestApp;
let user: TestUser;
let apiKey: string;
let examples: CodeExample[];
let publicUrl: string;
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "quickstart-"));

beforeAll(async () => {
  t = await createTestApp();
  await t.app.listen({ port: 0, host: "127.0.0.1" });
  publicUrl = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  const values = docsTemplateValues({ ...t.config, publicUrl });
  examples = extractExamples(fillPlaceholders(QUICKSTART, values));

  user = await createUserWithSession(t, { balance: "1" });
  const created = await t.app.inject({ method: "POST", url: "/api/v1/console/keys", headers: user.headers, payload: { name: "quickstart" } });
  expect(created.statusCode).toBe(201);
  apiKey = created.json().secret;
});
afterAll(async () => {
  await t.close();
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

describe("the quickstart's first call", () => {
  it("shows one example each in curl, JavaScript and Python, all calling echo with the key from the environment", () => {
    expect(examples.map((e) => [e.lang, e.flags])).toEqual([
      ["sh", ["example=curl"]],
      ["js", ["example=javascript"]],
      ["python", ["example=python"]],
    ]);
    for (const example of examples) {
      expect(example.code).toContain(`${publicUrl}/v1/tools/echo`);
      expect(example.code).toContain("API_KEY");
    }
  });

  it("runs each example as written: each gets the echo back and is charged the echo price", async () => {
    const price = parseMoney((await t.app.inject({ url: "/api/v1/tools" })).json().tools.find((tool: { id: string }) => tool.id === "echo").price);
    for (const example of examples) {
      const output = await runExample(example);
      expect(output, example.lang).toMatch(/["']?hello["']?\s*:\s*["']world["']/);
    }
    const info = await t.app.inject({ url: "/api/v1/tools/user-info", headers: user.headers });
    expect(info.json().balance).toBe(formatMoney(parseMoney("1") - 3n * price));
  });

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
  });
});
