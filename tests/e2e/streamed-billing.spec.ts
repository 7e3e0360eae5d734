/**
 * A streamed call as a developer makes it: the official openai SDK streams a chat completion from
 * an OpenAI-compatible upstream through the gateway, and billing details then show the call with
 * the units the stream reported and their exact price (issue 22); through an OpenAI-compatible
 * tool priced per model, at the SDK's defaults, they show the model, its tokens in and out and the
 * amount of each (issue 36). The spec runs a server of its own, since its catalog needs HTTP tools
 * the shared browser-test server does not sell.
 */
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { expect, test } from "@playwright/test";
import OpenAI from "openai";
import { createCodes } from "../../src/server/modules/redemption/service";
import { parseMoney } from "../../src/shared/money";
import { fundedUserWithKey, signInPage } from "./support/auth";
import { startOwnServer, type OwnServer } from "./support/own-server";
import { shortRequestId } from "../../src/shared/request-ids";

const USAGE = { prompt_tokens: 9, completion_tokens: 33, total_tokens: 42 };

/** An OpenAI-compatible upstream: `POST /v1/chat/completions` with `stream: true` answers server-sent events, usage last. */
function startUpstream(): Promise<http.Server> {
  const server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")));
    req.on("end", () => {
      const { model, stream, stream_options } = JSON.parse(body) as { model: string; stream?: boolean; stream_options?: { include_usage?: boolean } };
      if (req.url !== "/v1/chat/completions" || !stream) return void res.writeHead(404).end();
      const base = { id: "chatcmpl-e2e", object: "chat.completion.chunk", created: 1_700_000_000, model };
      const event = (value: unknown) => `data: ${JSON.stringify(value)}\n\n`;
      res.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", "x-request-id": "upstream-own-id" });
      res.write(event({ ...base, choices: [{ index: 0, delta: { role: "assistant", content: "Streamed " }, finish_reason: null }] }));
      res.write(event({ ...base, choices: [{ index: 0, delta: { content: "hello" }, finish_reason: "stop" }] }));
      // As OpenAI does: the usage chunk only for a request that asked for it.
      if (stream_options?.include_usage) res.write(event({ ...base, choices: [], usage: USAGE }));
      res.end("data: [DONE]\n\n");
    });
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}

let upstream: http.Server;
let server: OwnServer;
let redemptionCode: string;
let llmRedemptionCode: string;

test.beforeAll(async () => {
  // The server's start boots PGlite and migrates a new database: 11 to 33 s on a loaded machine.
  test.setTimeout(120_000);
  upstream = await startUpstream();
  const defaults = JSON.parse(fs.readFileSync("config/tools.json", "utf8")) as { tools: unknown[] };
  server = await startOwnServer("streamed-billing", (folder) => {
    const catalog = path.join(folder, "tools.json");
    fs.writeFileSync(
      catalog,
      JSON.stringify({
        tools: [
          ...defaults.tools,
          {
            id: "chat",
            name: "Chat",
            description: "An OpenAI-compatible chat model, priced per token.",
            category: "text",
            price: "0.001",
            unit: "token",
            maxUnitsPerCall: 1000,
            handler: { type: "http", url: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/v1`, method: "POST", unitsPath: "usage.total_tokens" },
          },
          {
            id: "gpt",
            name: "GPT",
            description: "An OpenAI-compatible LLM, priced per model.",
            category: "text",
            handler: {
              type: "http",
              url: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/v1`,
              protocol: "openai",
              models: { "tg-chat": { input: "2.00", output: "8.00" } },
            },
          },
        ],
      }),
    );
    return { TOOLS_CATALOG: catalog };
  });
  [redemptionCode, llmRedemptionCode] = (await createCodes(server.app.db, { amount: parseMoney("50"), count: 2, expiresAt: null, now: new Date() })).codes as [string, string];
});

test.afterAll(async () => {
  await server?.close();
  upstream?.close();
});

test("a streamed chat completion is billed the tokens its stream reported, and billing details show them", async ({ page }) => {
  const { api, token, auth, secret } = await fundedUserWithKey(server, redemptionCode, "sdk stream");

  const openai = new OpenAI({ apiKey: secret, baseURL: `${server.base}/v1/tools/chat`, maxRetries: 0 });
  const { data: stream, response } = await openai.chat.completions
    .create({ model: "fake-model", messages: [{ role: "user", content: "hi" }], stream: true, stream_options: { include_usage: true } })
    .withResponse();
  let text = "";
  for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? "";
  expect(text).toBe("Streamed hello");
  const requestId = response.headers.get("x-request-id")!;
  expect(requestId).not.toBe("upstream-own-id");

  await signInPage(page, token, server);
  await page.goto(`${server.base}/console/billing-details`);
  const row = page.getByTestId("billing-table").getByRole("row").filter({ hasText: shortRequestId(requestId) });
  const cells = row.getByRole("cell");
  // time, tool, key, units, amount, request id
  await expect(cells.nth(1)).toHaveText("Chat");
  await expect(cells.nth(2)).toHaveText("sdk stream");
  await expect(cells.nth(3)).toHaveText("42");
  await expect(cells.nth(4)).toHaveText("¥0.042");
  await expect(page.getByTestId("billing-total")).toHaveText("1 call, ¥0.042 in total");
  // 50.00 less 42 tokens at 0.001: the hold of 1,000 tokens was settled to the 42 used.
  const info = await api.get("/api/v1/tools/user-info", { headers: auth });
  expect(((await info.json()) as { balance: string }).balance).toBe("49.958");
  await api.dispose();
});

test("an LLM call at the SDK's defaults is billed per model and token direction, and billing details and the catalog show it", async ({ page }) => {
  const { api, token, auth, secret } = await fundedUserWithKey(server, llmRedemptionCode, "sdk defaults");
  const info = async () => ((await (await api.get("/api/v1/tools/user-info", { headers: auth })).json()) as { balance: string }).balance;
  const before = parseMoney(await info());

  // No stream_options: the SDK's default, which used to be charged its whole hold.
  const openai = new OpenAI({ apiKey: secret, baseURL: `${server.base}/v1/tools/gpt` });
  const { data: stream, response } = await openai.chat.completions.create({ model: "tg-chat", messages: [{ role: "user", content: "hi" }], stream: true }).withResponse();
  let text = "";
  for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? "";
  expect(text).toBe("Streamed hello");
  const requestId = response.headers.get("x-request-id")!;
  // 9 input tokens at ¥2.00/1M (18 micro-units) and 33 output tokens at ¥8.00/1M (264).
  expect(parseMoney(await info())).toBe(before - 282n);

  await signInPage(page, token, server);
  await page.goto(`${server.base}/console/billing-details`);
  const row = page.getByTestId("billing-table").getByRole("row").filter({ hasText: shortRequestId(requestId) });
  const cells = row.getByRole("cell");
  await expect(cells.nth(1)).toHaveText("GPT");
  await expect(cells.nth(3).getByTestId("billing-llm")).toContainText("tg-chat");
  await expect(cells.nth(3)).toContainText("Input: 9 tokens, ¥0.000018");
  await expect(cells.nth(3)).toContainText("Output: 33 tokens, ¥0.000264");
  await expect(cells.nth(3)).toContainText("Reported by the tool");
  await expect(cells.nth(4)).toHaveText("¥0.000282");

  await page.goto(`${server.base}/`);
  await expect(page.getByTestId("tool-gpt").locator(".catalog-price").first()).toHaveText("tg-chat: ¥2.00 / 1M input tokens, ¥8.00 / 1M output tokens");
  await api.dispose();
});
