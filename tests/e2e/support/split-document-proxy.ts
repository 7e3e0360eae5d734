import http from "node:http";
import type { AddressInfo } from "node:net";

export interface SplitDocumentProxy {
  url: string;
  close(): Promise<void>;
}

/**
 * A proxy in front of `target` that sends each HTML document in two pieces, the second `pauseMs`
 * after the first, split just after `splitAfter`: what a slow network does to a page, made
 * repeatable. Everything else passes through untouched.
 */
export async function startSplitDocumentProxy(target: string, splitAfter: string, pauseMs = 400): Promise<SplitDocumentProxy> {
  const server = http.createServer(async (req, res) => {
    const upstream = await fetch(new URL(req.url ?? "/", target), {
      method: req.method,
      headers: { accept: req.headers.accept ?? "*/*", "accept-encoding": "identity", cookie: req.headers.cookie ?? "" },
    });
    const headers = Object.fromEntries([...upstream.headers].filter(([name]) => !["content-length", "content-encoding", "transfer-encoding", "connection"].includes(name)));
    res.writeHead(upstream.status, headers);
    const body = Buffer.from(await upstream.arrayBuffer());
    const cut = (upstream.headers.get("content-type") ?? "").startsWith("text/html") ? body.indexOf(splitAfter) : -1;
    if (cut < 0) return res.end(body);
    res.write(body.subarray(0, cut + splitAfter.length));
    setTimeout(() => res.end(body.subarray(cut + splitAfter.length)), pauseMs);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    // The browser may still hold a connection open with a request on it; close() alone waits for it,
    // and in CI held a test whose assertions had passed until its timeout. The page is done with.
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
