import http from "node:http";
import type { AddressInfo } from "node:net";
import Fastify from "fastify";
import { expect, it } from "vitest";
import lifecyclePlugin from "./lifecycle";

it("closing waits for a call in flight, then for no client that keeps its connection open after the answer", async () => {
  const app = Fastify();
  await app.register(lifecyclePlugin);
  let answer: (() => void) | undefined;
  app.get("/slow", () => new Promise((done) => (answer = () => done({ ok: true }))));
  await app.listen({ port: 0, host: "127.0.0.1" });
  const port = (app.server.address() as AddressInfo).port;

  // A client that keeps idle connections open as long as the server lets it, as a proxy's pool does.
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const response = new Promise<{ status: number; body: string }>((resolve, reject) =>
    http
      .get({ port, host: "127.0.0.1", path: "/slow", agent }, (res) => {
        let body = "";
        res.setEncoding("utf8").on("data", (chunk: string) => (body += chunk));
        res.on("end", () => resolve({ status: res.statusCode!, body }));
      })
      .on("error", reject),
  );
  await expect.poll(() => answer).toBeDefined();

  const closed = app.close();
  await expect.poll(() => app.lifecycle.draining).toBe(true);
  answer!();
  expect(await response).toEqual({ status: 200, body: '{"ok":true}' });
  // Unless the server closes the connection once it goes idle, this waits on the client for good.
  await closed;
  expect(app.server.listening).toBe(false);
  agent.destroy();
});
