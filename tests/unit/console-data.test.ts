import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { consoleQueryClient } from "../../src/web/lib/console-data";
import { loadUserInfo } from "../../src/web/lib/api/get-user-info";
import { useSession } from "../../src/web/lib/session-store";
import { siteConfig } from "../../src/web/lib/site-config";

/**
 * A console page's loader starts the user info and every request the page shows before any of
 * them has answered: the server below holds each answer until the test releases them all.
 */
const seen: string[] = [];
const held: (() => void)[] = [];
const server = http.createServer((request, response) => {
  const path = request.url!.split("?")[0]!;
  seen.push(path);
  held.push(() => {
    response.writeHead(200, { "content-type": "application/json" });
    const body =
      path === "/api/v1/tools/user-info"
        ? { id: 1, phone: "13900000000", balance: "12.345", createdAt: "2026-01-01T00:00:00.000Z" }
        : path === "/api/v1/tools"
          ? { tools: [] }
          : path === "/api/v1/console/lots"
            ? { lots: [] }
            : {};
    response.end(JSON.stringify(body));
  });
});

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  siteConfig.apiBase = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // A first load: the root has not restored the session yet; the token is in storage.
  vi.stubGlobal("window", { localStorage: { getItem: (key: string) => (key === "csrf-token" ? "stored-token" : null) } });
});
afterAll(() => {
  vi.unstubAllGlobals();
  return new Promise<void>((resolve) => server.close(() => resolve()));
});
beforeEach(() => {
  seen.length = 0;
  held.length = 0;
  consoleQueryClient.clear();
  useSession.setState({ token: null, userInfo: null, restored: false });
});

const PAGES: [string, () => Promise<{ clientLoader: (args: { request: Request }) => Promise<unknown> }>, string[]][] = [
  [
    "/console/info",
    () => import("../../src/web/routes/console/info"),
    ["/api/v1/console/alerts", "/api/v1/console/referrals", "/api/v1/console/runway", "/api/v1/console/usage", "/api/v1/tools/user-info"],
  ],
  ["/console/api-keys", () => import("../../src/web/routes/console/api-keys"), ["/api/v1/console/keys", "/api/v1/tools/user-info"]],
  ["/console/apply", () => import("../../src/web/routes/console/apply"), ["/api/v1/console/applications", "/api/v1/tools/user-info"]],
  [
    "/console/billing-details",
    () => import("../../src/web/routes/console/billing-details"),
    ["/api/v1/console/billing", "/api/v1/console/keys", "/api/v1/tools", "/api/v1/tools/user-info"],
  ],
  [
    "/console/billing-details?tab=calls&outcome=insufficient_balance",
    () => import("../../src/web/routes/console/billing-details"),
    ["/api/v1/console/calls", "/api/v1/console/keys", "/api/v1/tools", "/api/v1/tools/user-info"],
  ],
  [
    "/console/charge-details",
    () => import("../../src/web/routes/console/charge-details"),
    ["/api/v1/console/credits", "/api/v1/console/lots", "/api/v1/console/payment-methods", "/api/v1/tools", "/api/v1/tools/user-info"],
  ],
];

describe("a console page's loader (decision 037)", () => {
  it.each(PAGES)("%s asks for the user info and the page's data together, and renders from the cache", async (page, load, expected) => {
    const { clientLoader } = await load();
    const loaded = clientLoader({ request: new Request(`http://localhost${page}`) });
    // Every request is at the server while none has been answered: none waits for another.
    await vi.waitFor(() => expect([...seen].sort()).toEqual(expected));
    for (const release of held) release();
    await loaded;
    expect(useSession.getState().userInfo?.balance).toBe("12.34");
    expect(consoleQueryClient.getQueryCache().getAll().every((query) => query.state.status === "success")).toBe(true);
    expect(consoleQueryClient.isFetching()).toBe(0);
    // The root's own ask, once the session is restored, finds the user info there.
    await loadUserInfo();
    expect(seen).toHaveLength(expected.length);
  });

  it("does nothing signed out: the layout shows the login prompt", async () => {
    vi.stubGlobal("window", { localStorage: { getItem: () => null } });
    const { clientLoader } = await import("../../src/web/routes/console/info");
    await expect(clientLoader()).resolves.toBeNull();
    expect(seen).toEqual([]);
    vi.stubGlobal("window", { localStorage: { getItem: (key: string) => (key === "csrf-token" ? "stored-token" : null) } });
  });
});
