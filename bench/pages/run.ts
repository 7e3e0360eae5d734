/**
 * Lighthouse against the built app (run on demand; build with tests/e2e/support/site-identity.env, see README.md).
 * Starts the real server on a fresh embedded database, signs a user up through the real API for
 * the console pages, and runs Lighthouse 12 (mobile, its default simulated throttling) in Debian's
 * Chromium on each page; prints the median of each figure, and the landing page's JavaScript bytes.
 * Lighthouse's timings are noisy on a loaded machine; the bytes and the layout shift are not.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { randomInt } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import * as chromeLauncher from "chrome-launcher";
import lighthouse from "lighthouse";
import puppeteer from "puppeteer-core";
import type { Challenge } from "altcha-lib";
import { CHROMIUM_ARGS, CHROMIUM_EXECUTABLE } from "../../playwright.config";
import { initialJavaScript } from "../../scripts/initial-js";
import { solveAltchaChallenge } from "../../src/server/testing/altcha";
import { latestCodeFor } from "../../src/server/testing/sms-outbox";
import { E2E_SITE_IDENTITY } from "../../tests/e2e/support/site-identity";

const PUBLIC_PAGES = ["/", "/privacy", "/protocol-serve", "/service-level", "/docs.html", "/docs/quickstart.html", "/docs/zh-CN.html", "/docs/zh-CN/quickstart.html"];
const CONSOLE_PAGES = ["/console/info", "/console/api-keys", "/console/apply", "/console/billing-details", "/console/charge-details"];

const { values: args } = parseArgs({
  options: {
    runs: { type: "string", default: "1" },
    /** Comma-separated paths to measure instead of every page, e.g. `/,/console/info`. */
    only: { type: "string" },
    port: { type: "string", default: "0" },
    /** A folder to write each run's Lighthouse report to (JSON), for its diagnostics. */
    save: { type: "string" },
  },
});
const runs = Number(args.runs);
if (!Number.isInteger(runs) || runs < 1) {
  console.error(`--runs must be a whole number of at least 1, not ${JSON.stringify(args.runs)}`);
  process.exit(2);
}
const root = path.resolve(import.meta.dirname, "../..");
const clientDir = path.resolve(root, process.env.BUILD_DIR ?? "build", "client");
if (!fs.existsSync(path.join(clientDir, "index.html"))) {
  console.error(`No web build in ${clientDir}: run \`npm run build\` first.`);
  process.exit(2);
}

async function freePort(): Promise<number> {
  const net = await import("node:net");
  return new Promise((resolve) => {
    const server = net.createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

async function startServer(dataDir: string, port: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, ["--import", "tsx", "src/server/server.ts"], {
    cwd: root,
    stdio: ["ignore", "ignore", "inherit"],
    env: {
      ...process.env,
      // The operator the build is prerendered with (built as its README says): a server naming
      // another one rewrites the legal pages' header as they hydrate, a layout shift of its own.
      ...E2E_SITE_IDENTITY,
      NODE_ENV: "production",
      PORT: String(port),
      HOST: "127.0.0.1",
      DATA_DIR: dataDir,
      DATABASE_URL: "",
      SESSION_SECRET: "bench-pages-0123456789abcdef0123456789abcdef",
      PUBLIC_URL: `http://127.0.0.1:${port}`,
      LOG_LEVEL: "warn",
      ALTCHA_MAX_NUMBER: "2000",
    },
  });
  const deadline = Date.now() + 300_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode}`);
    try {
      if ((await fetch(`http://127.0.0.1:${port}/api/v1/health`)).ok) return child;
    } catch {
      /* not listening yet */
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  child.kill("SIGTERM");
  throw new Error("the server did not answer /api/v1/health within 300 s");
}

/** Signs a new phone up as a browser would (altcha solved here, the code read from the SMS outbox). */
async function signUp(base: string, dataDir: string): Promise<string> {
  const phone = `139${String(randomInt(0, 100_000_000)).padStart(8, "0")}`;
  const challenge = (await (await fetch(`${base}/api/v1/auth/captcha/altcha/challenge`)).json()) as Challenge;
  // The code is bound to the browser that asked for it: its login_client cookie goes with the login.
  const cookies: string[] = [];
  const post = (url: string, body: unknown) =>
    fetch(`${base}${url}`, {
      method: "POST",
      headers: { "content-type": "application/json", cookie: cookies.join("; ") },
      body: JSON.stringify(body),
    });
  const sent = await post("/api/v1/auth/phone/verification_code", { telephone: phone, captchaResult: await solveAltchaChallenge(challenge) });
  if (!sent.ok) throw new Error(`code request: ${sent.status} ${await sent.text()}`);
  cookies.push(...sent.headers.getSetCookie().map((c) => c.split(";")[0]!));
  const code = latestCodeFor(dataDir, phone);
  if (!code) throw new Error("no code in the SMS outbox");
  const login = await post("/api/v1/auth/phone/login", { telephone: phone, code, recommendCode: "" });
  if (!login.ok) throw new Error(`login: ${login.status} ${await login.text()}`);
  return ((await login.json()) as { csrf_token: string }).csrf_token;
}

interface Figures {
  performance: number;
  accessibility: number;
  fcp: number;
  lcp: number;
  tbt: number;
  cls: number;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function main(): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "tollgate-bench-pages-"));
  const port = Number(args.port) || (await freePort());
  const base = `http://127.0.0.1:${port}`;
  const server = await startServer(dataDir, port);
  const chrome = await chromeLauncher.launch({
    chromePath: CHROMIUM_EXECUTABLE,
    chromeFlags: ["--headless=new", ...CHROMIUM_ARGS],
  });
  try {
    const token = await signUp(base, dataDir);
    const browser = await puppeteer.connect({ browserURL: `http://127.0.0.1:${chrome.port}` });
    const only = args.only?.split(",");
    const pages = [...PUBLIC_PAGES, ...CONSOLE_PAGES].filter((p) => !only || only.includes(p));
    const rows: [string, Figures][] = [];
    for (const pathname of pages) {
      const signedIn = pathname.startsWith("/console/");
      const samples: Figures[] = [];
      for (let i = 0, retries = 0; i < runs; i++) {
        const page = await browser.newPage();
        // Every page is measured with an empty HTTP cache, as a first visit: Lighthouse's own reset is
        // off (it would clear the session too), and the pages measured before share their chunks.
        await (await page.createCDPSession()).send("Network.clearBrowserCache");
        await page.goto(`${base}/api/v1/health`);
        // The console reads its session from localStorage and the cookie, as after a login.
        await page.evaluate((value) => (value ? localStorage.setItem("csrf-token", value) : localStorage.clear()), signedIn ? token : "");
        // Public pages come first, so the cookie is set only once they are done.
        if (signedIn) await browser.setCookie({ name: "token", value: token, domain: "127.0.0.1", path: "/" });
        const result = await lighthouse(
          `${base}${pathname}`,
          { port: chrome.port, output: "json", logLevel: "error", onlyCategories: ["performance", "accessibility"], disableStorageReset: true },
          undefined,
          page,
        );
        await page.close();
        const lhr = result?.lhr;
        if (!lhr) throw new Error(`Lighthouse gave no result for ${pathname}`);
        // On a loaded machine Lighthouse now and then misses the navigation in its trace: measure again.
        if (lhr.runtimeError?.code === "NO_NAVSTART" && retries++ < 3) {
          console.error(`  ${pathname}: ${lhr.runtimeError.code}, measuring again`);
          i--;
          continue;
        }
        if (lhr.runtimeError) throw new Error(`${pathname}: ${lhr.runtimeError.message}`);
        if (args.save) {
          fs.mkdirSync(args.save, { recursive: true });
          fs.writeFileSync(path.join(args.save, `${pathname.replace(/\W+/g, "_")}-${i}.json`), JSON.stringify(lhr));
        }
        const audit = (id: string) => lhr.audits[id]?.numericValue ?? NaN;
        samples.push({
          performance: Math.round((lhr.categories.performance?.score ?? 0) * 100),
          accessibility: Math.round((lhr.categories.accessibility?.score ?? 0) * 100),
          fcp: audit("first-contentful-paint"),
          lcp: audit("largest-contentful-paint"),
          tbt: audit("total-blocking-time"),
          cls: audit("cumulative-layout-shift"),
        });
        const failing = Object.values(lhr.audits).filter(
          (a) => lhr.categories.accessibility?.auditRefs.some((r) => r.id === a.id && r.weight > 0) && a.score !== null && a.score < 1,
        );
        for (const a of failing) {
          console.error(`  ${pathname}: accessibility: ${a.id}: ${a.title}`);
          const items = (a.details as { items?: { node?: { snippet?: string; explanation?: string } }[] } | undefined)?.items ?? [];
          for (const { node } of items) if (node) console.error(`    ${node.snippet}\n      ${node.explanation?.split("\n").join("\n      ")}`);
        }
      }
      const pick = (key: keyof Figures) => median(samples.map((s) => s[key]));
      const figures: Figures = {
        performance: pick("performance"),
        accessibility: pick("accessibility"),
        fcp: pick("fcp"),
        lcp: pick("lcp"),
        tbt: pick("tbt"),
        cls: pick("cls"),
      };
      rows.push([pathname, figures]);
      console.error(`${pathname} done`);
    }
    browser.disconnect();
    const landing = initialJavaScript(clientDir, "index.html");
    console.log(`\nLighthouse 12, mobile, simulated throttling; median of ${runs} run(s) per page\n`);
    console.log("| page | performance | accessibility | FCP | LCP | TBT | CLS |");
    console.log("|---|---|---|---|---|---|---|");
    for (const [pathname, f] of rows) {
      console.log(
        `| \`${pathname}\` | ${f.performance} | ${f.accessibility} | ${(f.fcp / 1000).toFixed(1)} s | ${(f.lcp / 1000).toFixed(1)} s | ${Math.round(f.tbt)} ms | ${f.cls.toFixed(3)} |`,
      );
    }
    console.log(`\nlanding page JavaScript before any interaction: ${(landing.gzipBytes / 1000).toFixed(1)} kB gzip in ${landing.files.length} files`);
  } finally {
    chrome.kill();
    server.kill("SIGTERM");
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
