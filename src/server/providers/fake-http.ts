import http from "node:http";
import type { AddressInfo } from "node:net";

export interface FakeRequest {
  method: string;
  /** Path and query exactly as received. */
  url: string;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

export interface FakeResponse {
  status: number;
  json: unknown;
}

/** A local HTTP server for a provider's fake: it hands each whole request to `handle` and answers JSON. */
export class FakeHttpServer {
  private server: http.Server | undefined;
  url = "";

  constructor(private readonly handle: (request: FakeRequest) => FakeResponse | Promise<FakeResponse>) {}

  async start(): Promise<string> {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () => {
        void Promise.resolve(this.handle({ method: req.method ?? "GET", url: req.url ?? "/", headers: req.headers, body: Buffer.concat(chunks) }))
          .catch((error: unknown) => ({ status: 500, json: { error: String(error) } }))
          .then(({ status, json }) => {
            res.writeHead(status, { "content-type": "application/json;charset=utf-8" });
            res.end(JSON.stringify(json));
          });
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, "127.0.0.1", resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this.url;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
