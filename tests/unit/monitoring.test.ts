/**
 * The monitoring configuration Tollgate ships (deploy/), checked by the real programs (Debian's
 * prometheus and prometheus-alertmanager, installed by scripts/ensure-test-tools.sh): the files
 * parse, each alert's unit test passes, every metric the rules use is exported, and an alert
 * travels from a running Tollgate (the compiled server, two workers on PostgreSQL) through
 * Prometheus and Alertmanager to a webhook. On PostgreSQL only, in a database of its own: it runs once.
 */
import { execFile, spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { promisify } from "node:util";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { users } from "../../src/server/db/schema/index";
import { freePort, waitForPort } from "../../src/server/testing/free-port";
import { tempDataDir } from "../../src/server/testing/temp-dir";
import { systemClock } from "../../src/server/clock";
import { openPostgres, type Database } from "../../src/server/db/client";
import { buildServerForTest, emptyPostgresDatabase, readyUrl, startServerProcess, type ServerProcess } from "../../src/server/testing/server-process";
import { TEST_SECRET } from "../../src/server/testing/test-app";
import { createUserWithSession } from "../../src/server/testing/users";

const run = promisify(execFile);
const deploy = path.resolve("deploy");
const METRICS_TOKEN = "monitoring-test-metrics-token";
/** The targets deploy/prometheus/prometheus.yml ships with, which the running test replaces with its server. */
const SHIPPED_TARGETS = '["127.0.0.1:3001", "127.0.0.1:3002"]';

/** Runs a program and gives what it printed; a non-zero exit fails with its output. */
async function check(program: string, args: string[], cwd = deploy): Promise<string> {
  const { stdout, stderr } = await run(program, args, { cwd });
  return stdout + stderr;
}

/** The metric families an alert rule or a dashboard query names (a histogram's _bucket, _count and _sum are its family). */
function familiesIn(text: string): string[] {
  const names = [...text.matchAll(/\btollgate_[a-z_]+/g)].map((m) => m[0].replace(/_(bucket|count|sum)$/, ""));
  return [...new Set(names)].sort();
}

describe("the shipped Prometheus and Alertmanager configuration", () => {
  it("parses, and every alert's unit test passes", async () => {
    expect(await check("promtool", ["check", "config", "--syntax-only", "prometheus/prometheus.yml"])).toContain("SUCCESS");
    expect(await check("promtool", ["check", "rules", "prometheus/rules.yml"])).toContain("SUCCESS");
    expect(await check("promtool", ["test", "rules", "rules.test.yml"], path.join(deploy, "prometheus"))).toContain("SUCCESS");
    expect(await check("amtool", ["check-config", "alertmanager/alertmanager.yml"])).toContain("SUCCESS");
  });

  it("scrapes the instances the deployment guide runs, each directly, and nginx does not serve /metrics", () => {
    const prometheus = fs.readFileSync(path.join(deploy, "prometheus/prometheus.yml"), "utf8");
    expect(prometheus).toContain(`- targets: ${SHIPPED_TARGETS}`);
    for (const guide of ["docs/deployment.md", "docs/deployment.zh-CN.md"]) {
      const text = fs.readFileSync(path.resolve(guide), "utf8");
      // nginx's upstream servers and the systemd units are the instances Prometheus must scrape, one target each.
      const upstream = [...text.matchAll(/^\s*server (127\.0\.0\.1:\d+) max_fails=0;$/gm)].map((m) => m[1]!);
      expect(`[${upstream.map((target) => `"${target}"`).join(", ")}]`, guide).toBe(SHIPPED_TARGETS);
      expect(text, guide).toMatch(/^HOST=127\.0\.0\.1$/m);
      // Through nginx a scrape would reach any one instance: its /metrics location answers none.
      expect(/location = \/metrics \{\s*return 404;\s*\}/.test(text), guide).toBe(true);
    }
  });

  it("has a unit test for every alert it defines", () => {
    const rules = fs.readFileSync(path.join(deploy, "prometheus/rules.yml"), "utf8");
    const tests = fs.readFileSync(path.join(deploy, "prometheus/rules.test.yml"), "utf8");
    const alerts = [...rules.matchAll(/- alert: (\w+)/g)].map((m) => m[1]!);
    expect(alerts.length).toBeGreaterThan(5);
    for (const alert of alerts) expect(tests, `${alert} has no case in rules.test.yml`).toMatch(new RegExp(`alertname: ${alert}\\b[\\s\\S]*?exp_labels`));
  });
});

/**
 * Tollgate as an operator runs it: the compiled server with two worker processes on a PostgreSQL
 * database of its own (WEB_CONCURRENCY=2), one Prometheus target whose scrape covers both.
 */
describe("a running Tollgate, two workers on PostgreSQL", () => {
  let dist: { dir: string; remove(): void };
  let postgres: { url: string; drop(): Promise<void> };
  let server: ServerProcess;
  let database: Database;
  /** Users are made in the server's database, as the other tests make them. */
  const owner = () => ({ database, clock: systemClock });
  let base: string;
  const children: ChildProcess[] = [];
  let webhook: http.Server;
  const alertsReceived: { status: string; labels: Record<string, string> }[] = [];
  let prometheusLog: () => string;
  let alertmanagerLog: () => string;
  /** Runs an instant query through Prometheus's HTTP API; a query it refuses fails the test. */
  let query: (expr: string) => Promise<string[]>;

  beforeAll(async () => {
    const catalog = path.join(tempDataDir("monitoring-catalog-"), "tools.json");
    const tool = (id: string, extra: object = {}) => ({ id, name: id, description: id, category: "test", price: "0.01", handler: { type: "builtin", name: "echo" }, ...extra });
    const starter = { id: "starter", name: "Starter", units: 10, price: "0.05", validDays: 30 };
    fs.writeFileSync(catalog, JSON.stringify({ tools: [tool("echo"), tool("planned", { freeQuota: { units: 1, period: "day" }, packages: [starter] })] }));
    [dist, postgres] = await Promise.all([buildServerForTest(), emptyPostgresDatabase()]);
    server = startServerProcess(path.join(dist.dir, "server.js"), {
      DATABASE_URL: postgres.url,
      DATA_DIR: tempDataDir("monitoring-data-"),
      WEB_CONCURRENCY: "2",
      METRICS_TOKEN,
      LEDGER_CHECK_INTERVAL_SECONDS: "1",
      TOOLS_CATALOG: catalog,
      SESSION_SECRET: TEST_SECRET,
    });
    base = new URL(await readyUrl(server)).host;
    database = openPostgres(postgres.url, 2);
    webhook = http.createServer((request, response) => {
      let body = "";
      request.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")));
      request.on("end", () => {
        for (const alert of (JSON.parse(body) as { alerts: { status: string; labels: Record<string, string> }[] }).alerts) alertsReceived.push(alert);
        response.end();
      });
    });
    await new Promise<void>((resolve) => webhook.listen(0, "127.0.0.1", resolve));

    const dir = tempDataDir("monitoring-");
    const [prometheusPort, alertmanagerPort] = [await freePort(), await freePort()];
    fs.writeFileSync(path.join(dir, "token"), METRICS_TOKEN);
    fs.copyFileSync(path.join(deploy, "prometheus/rules.yml"), path.join(dir, "rules.yml"));
    // The shipped files, with this test's addresses and a faster pace.
    const prometheusConfig = fs
      .readFileSync(path.join(deploy, "prometheus/prometheus.yml"), "utf8")
      .replace(/scrape_interval: 15s/, "scrape_interval: 1s")
      .replace(/evaluation_interval: 15s/, "evaluation_interval: 1s")
      .replace('["127.0.0.1:9093"]', `["127.0.0.1:${alertmanagerPort}"]`)
      .replace("/etc/prometheus/tollgate-metrics-token", path.join(dir, "token"))
      .replace(SHIPPED_TARGETS, `["${base}"]`);
    fs.writeFileSync(path.join(dir, "prometheus.yml"), prometheusConfig);
    const webhookUrl = `http://127.0.0.1:${(webhook.address() as AddressInfo).port}/alerts`;
    fs.writeFileSync(path.join(dir, "alertmanager.yml"), fs.readFileSync(path.join(deploy, "alertmanager/alertmanager.yml"), "utf8").replace("http://127.0.0.1:9095/alerts", webhookUrl));
    const start = (program: string, args: string[]) => {
      const child = spawn(program, args, { cwd: dir, stdio: ["ignore", "ignore", "pipe"] });
      let log = "";
      child.stderr!.on("data", (chunk: Buffer) => (log = (log + chunk.toString("utf8")).slice(-4000)));
      children.push(child);
      return () => log;
    };
    alertmanagerLog = start("prometheus-alertmanager", [
      `--config.file=${path.join(dir, "alertmanager.yml")}`,
      `--storage.path=${path.join(dir, "alertmanager")}`,
      `--web.listen-address=127.0.0.1:${alertmanagerPort}`,
      "--cluster.listen-address=",
    ]);
    prometheusLog = start("prometheus", [
      `--config.file=${path.join(dir, "prometheus.yml")}`,
      `--storage.tsdb.path=${path.join(dir, "prometheus")}`,
      `--web.listen-address=127.0.0.1:${prometheusPort}`,
    ]);
    await waitForPort(alertmanagerPort);
    await waitForPort(prometheusPort);
    query = async (expr: string) => {
      const response = await fetch(`http://127.0.0.1:${prometheusPort}/api/v1/query?query=${encodeURIComponent(expr)}`);
      const body = (await response.json()) as { status: string; error?: string; data: { result: { value: [number, string] }[] } };
      if (body.status !== "success") throw new Error(`Prometheus refused ${expr}: ${body.error}`);
      return body.data.result.map((r) => r.value[1]);
    };
  }, 600_000);

  afterAll(async () => {
    for (const child of children) child.kill("SIGKILL");
    webhook?.close();
    if (server?.child.exitCode === null) server.child.kill("SIGKILL");
    await database?.close();
    await postgres?.drop();
    dist?.remove();
  }, 60_000);

  it("exports every metric the alert rules and the dashboard use", async () => {
    const response = await fetch(`http://${base}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
    const exported = new Set([...(await response.text()).matchAll(/^# TYPE (tollgate_\w+)/gm)].map((m) => m[1]!));
    const used = familiesIn(fs.readFileSync(path.join(deploy, "prometheus/rules.yml"), "utf8") + fs.readFileSync(path.join(deploy, "grafana/tollgate.json"), "utf8"));
    expect(used.length).toBeGreaterThan(5);
    expect(used.filter((family) => !exported.has(family))).toEqual([]);
  });

  it("makes no new series for tool ids, paths or label values a caller chose", async () => {
    const series = async () => {
      const text = await (await fetch(`http://${base}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text();
      return new Set(text.split("\n").filter((line) => line.startsWith("tollgate_")).map((line) => line.replace(/ \S+$/, "")));
    };
    const madeUpCalls = async (round: number) => {
      for (let i = 0; i < 20; i++) {
        const made = `made-up-${round}-${i}-${Math.random().toString(36).slice(2)}`;
        await fetch(`http://${base}/v1/tools/${made}/${made}?${made}=1`, { method: "POST", headers: { authorization: "Bearer tg_nope" } });
        await fetch(`http://${base}/api/v1/${made}`);
        await fetch(`http://${base}/api/v1/payments/${made}/notify`, { method: "POST", body: "x" });
      }
    };
    await madeUpCalls(1);
    const afterFirst = await series();
    await madeUpCalls(2);
    const afterSecond = await series();
    expect([...afterSecond].filter((one) => one.includes("made-up"))).toEqual([]);
    // Made-up calls land in a few fixed series (an unknown tool, an unmatched route): twenty more add none.
    expect([...afterSecond].filter((one) => !afterFirst.has(one))).toEqual([]);
  });

  it("raises the ledger drift alert through a real Prometheus and Alertmanager, to the webhook", async () => {
    await expect.poll(() => query('up{job="tollgate"}'), { timeout: 30_000, message: prometheusLog() }).toEqual(["1"]);
    // One target, both workers in its scrape.
    await expect.poll(() => query("tollgate_workers"), { timeout: 30_000 }).toEqual(["2"]);
    await expect.poll(() => query("tollgate_ledger_drift_users"), { timeout: 30_000 }).toEqual(["0"]);

    // A balance changed behind the ledger's back.
    const user = await createUserWithSession(owner(), { balance: "1" });
    await database.db.update(users).set({ balance: 1_000_007n }).where(eq(users.id, user.userId));
    await expect
      .poll(() => alertsReceived.filter((alert) => alert.labels.alertname === "TollgateLedgerDrift" && alert.status === "firing").length, {
        timeout: 60_000,
        message: `${prometheusLog()}\n${alertmanagerLog()}`,
      })
      .toBeGreaterThan(0);
    const fired = alertsReceived.find((alert) => alert.labels.alertname === "TollgateLedgerDrift")!;
    expect(fired.labels).toMatchObject({ severity: "critical", instance: base, job: "tollgate" });
    // Put right again, for the dashboard's test.
    await database.db.update(users).set({ balance: 1_000_000n }).where(eq(users.id, user.userId));
  });

  it("has every dashboard panel's query answered by Prometheus with data, once the paths have been driven", async () => {
    const dashboard = JSON.parse(fs.readFileSync(path.join(deploy, "grafana/tollgate.json"), "utf8")) as { panels: { title: string; targets?: { expr: string }[] }[] };
    const queries = dashboard.panels.flatMap((panel) => (panel.targets ?? []).map((target) => ({ panel: panel.title, expr: target.expr })));
    expect(queries.length).toBeGreaterThan(15);

    // Served calls, a call that is refused, and a redemption-free top-up path left at its zero series.
    const user = await createUserWithSession(owner(), { balance: "5" });
    const post = (url: string, body: object, headers: Record<string, string> = {}) =>
      fetch(`http://${base}${url}`, { method: "POST", headers: { ...user.headers, "content-type": "application/json", ...headers }, body: JSON.stringify(body) });
    const key = await post("/api/v1/console/keys", { name: "dashboard" });
    const secret = ((await key.json()) as { secret: string }).secret;
    for (let i = 0; i < 5; i++) {
      const served = await fetch(`http://${base}/v1/tools/echo`, { method: "POST", headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" }, body: "{}" });
      expect(served.status).toBe(200);
    }
    expect((await fetch(`http://${base}/v1/tools/no-such-tool`, { method: "POST", headers: { authorization: `Bearer ${secret}` } })).status).toBe(404);
    // A package bought, and calls of its tool paid by the free quota, then the package.
    const bought = await post("/api/v1/console/packages/purchase", { toolId: "planned", packageId: "starter" }, { "idempotency-key": "dashboard" });
    expect(bought.status).toBe(201);
    for (let i = 0; i < 2; i++) {
      const served = await fetch(`http://${base}/v1/tools/planned`, { method: "POST", headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" }, body: "{}" });
      expect(served.status).toBe(200);
    }

    const asDrawn = (expr: string) => expr.replaceAll("$instance", ".*").replaceAll("$tool", ".*").replaceAll("$__rate_interval", "1m");
    for (const { panel, expr } of queries) {
      await expect.poll(async () => (await query(asDrawn(expr))).length, { timeout: 30_000, message: `${panel}: ${expr}` }).toBeGreaterThan(0);
    }
  });
});
