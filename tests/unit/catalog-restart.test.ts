/**
 * Issue 39 §2: an operator edits the catalog or PUBLIC_URL and restarts the compiled server, with
 * no rebuild: the landing page's card, the tool's docs pages in English and Chinese, the docs'
 * sidebars and overview, and every example's base address follow. Needs a web build (`npm run
 * build`; BUILD_DIR picks it); the server is the compiled one (TEST_COMPILED_SERVER or a fresh dist).
 */
import { createHash } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { CATALOG_CARDS_ID, type CatalogCards } from "../../src/shared/catalog-card";
import { DOCS_TEMPLATES_FILE } from "../../src/server/modules/site-pages/docs";
import { withoutBreakHints } from "../../src/server/testing/break-hints";
import { buildServerForTest, emptyPostgresDatabase, readyUrl, startServerProcess, type ServerProcess } from "../../src/server/testing/server-process";

const SLOW = 600_000;
const webRoot = path.resolve(process.env.BUILD_DIR ?? "build", "client");
const folder = fs.mkdtempSync(path.join(os.tmpdir(), "tollgate-catalog-restart-"));
const catalogFile = path.join(folder, "tools.json");
const shipped = JSON.parse(fs.readFileSync("config/tools.json", "utf8")) as { tools: unknown[] };

const WEATHER = {
  id: "weather",
  name: "Weather <now>",
  description: "Today's weather for a city & its region.",
  category: "data",
  price: "0.003",
  requiresApproval: true,
  handler: { type: "http", url: "http://127.0.0.1:9/weather", method: "GET" },
  translations: { "zh-CN": { name: "天气", description: "城市今天的天气。", category: "数据" } },
};

let dist: { dir: string; remove(): void };
let database: { url: string; drop(): Promise<void> } | undefined;
let server: ServerProcess | undefined;
let base = "";

async function restart(env: Record<string, string>): Promise<void> {
  if (server) {
    server.child.kill("SIGTERM");
    expect(await server.exited).toEqual({ code: 0, signal: null });
  }
  server = startServerProcess(path.join(dist.dir, "server.js"), {
    DATA_DIR: path.join(folder, "data"),
    DATABASE_URL: database?.url ?? "",
    WEB_ROOT: webRoot,
    TOOLS_CATALOG: catalogFile,
    ...env,
  });
  base = await readyUrl(server);
}

async function page(url: string): Promise<{ status: number; body: string; csp: string }> {
  const res = await fetch(base + url);
  return { status: res.status, body: withoutBreakHints(await res.text()), csp: res.headers.get("content-security-policy") ?? "" };
}

beforeAll(async () => {
  if (!fs.existsSync(path.join(webRoot, "..", DOCS_TEMPLATES_FILE))) throw new Error(`no web build beside ${webRoot}: run \`npm run build\` first`);
  dist = await buildServerForTest();
  if (process.env.DATABASE_URL) database = await emptyPostgresDatabase();
}, SLOW);
afterAll(async () => {
  if (server && server.child.exitCode === null) {
    server.child.kill("SIGTERM");
    await server.exited;
  }
  await database?.drop();
  dist?.remove();
  fs.rmSync(folder, { recursive: true, force: true });
});

it("shows a tool added to the catalog on the landing page and in the docs, and the new PUBLIC_URL in every example, after a restart", async () => {
  fs.writeFileSync(catalogFile, JSON.stringify(shipped));
  await restart({ PUBLIC_URL: "https://first.example.com" });
  expect((await page("/")).body).not.toContain('data-testid="tool-weather"');
  expect((await page("/docs/tools/weather.html")).status).toBe(404);
  expect((await page("/docs/quickstart.html")).body).toContain("https://first.example.com/v1/tools/echo");

  fs.writeFileSync(catalogFile, JSON.stringify({ tools: [...shipped.tools, WEATHER] }));
  await restart({ PUBLIC_URL: "https://second.example.com/" });

  // The card, in the HTML as prerendered (English) and in every language for the app, its text escaped.
  const landing = await page("/");
  expect(landing.status).toBe(200);
  const card = /<li[^>]*data-testid="tool-weather"[\s\S]*?<\/li>/.exec(landing.body)?.[0] ?? "";
  expect(card).toContain("<h3>Weather &lt;now&gt;</h3>");
  expect(card).toContain("Today&#39;s weather for a city &amp; its region.");
  expect(card).toContain("¥0.003 / call");
  expect(card).toContain("approval required");
  expect(card).toContain('href="/docs/tools/weather.html"');
  expect(landing.body).toContain('data-testid="tool-echo"');
  expect(landing.body).not.toContain("tgslot");
  const json = new RegExp(`<script type="application/json" id="${CATALOG_CARDS_ID}">(.*?)</script>`).exec(landing.body)?.[1] ?? "{}";
  const cards = JSON.parse(json) as CatalogCards;
  expect(cards["zh-CN"].find((c) => c.id === "weather")).toEqual({
    id: "weather",
    name: "天气",
    category: "数据",
    description: "城市今天的天气。",
    price: "¥0.003 / 次",
    approval: "需申请开通",
  });
  expect(cards.en.map((c) => c.id)).toEqual(["echo", "qrcode", "pinyin", "weather"]);
  // Every inline script the page now has is allowed by the CSP's hashes.
  for (const [, script] of landing.body.matchAll(/<script(?![^>]*\bsrc=)(?![^>]*application\/json)[^>]*>([\s\S]*?)<\/script>/g)) {
    expect(landing.csp).toContain(`'sha256-${createHash("sha256").update(script!).digest("base64")}'`);
  }

  // Its docs page in each language, with its call at the new address.
  const en = await page("/docs/tools/weather.html");
  expect(en.status).toBe(200);
  expect(en.body).toContain("<h1>Weather &lt;now&gt;</h1>");
  expect(en.body).toContain("GET https://second.example.com/v1/tools/weather");
  expect(en.body).toContain('href="/console/apply"');
  expect(en.body).toContain('aria-current="page">Weather &lt;now&gt;</a>');
  const zh = await page("/docs/zh-CN/tools/weather.html");
  expect(zh.status).toBe(200);
  expect(zh.body).toContain("<h1>天气</h1>");
  expect(zh.body).toContain("¥0.003/次");
  expect((await page("/docs/tools/weather")).status).toBe(200);
  // Every docs page's sidebar and the overview list it.
  expect((await page("/docs.html")).body).toContain('<a href="/docs/tools/weather.html">Weather &lt;now&gt;</a>');
  expect((await page("/docs/zh-CN/tools.html")).body).toContain('<a href="/docs/zh-CN/tools/weather.html">天气</a>');

  // Every example carries the new address, none the old one.
  for (const url of ["/docs/quickstart.html", "/docs/zh-CN/quickstart.html", "/docs/tools/echo.html", "/docs/tools.html", "/docs/api.html"]) {
    const { body } = await page(url);
    expect(body, url).toContain("https://second.example.com/");
    expect(body, url).not.toContain("first.example.com");
    expect(body, url).not.toContain("tgslot");
  }
  expect((await page("/docs/quickstart.html")).body).toContain("https://second.example.com/v1/tools/echo");
}, SLOW);

