/**
 * The streaming benchmark's fake upstream, in a process of its own as a real upstream is: `/sse…`
 * writes the server-sent events SSE_EVENTS (the first at once) and ends; anything else is a
 * chunked binary body of BIG_BYTES, written with back-pressure. Prints its port once it listens.
 */
import { once } from "node:events";
import http from "node:http";

const BIG_BYTES = Number(process.env.BIG_BYTES);
const CHUNK = Buffer.alloc(64 * 1024, 7);
const [FIRST_EVENT, ...REST] = JSON.parse(process.env.SSE_EVENTS);

const upstream = http.createServer(async (req, res) => {
  req.resume();
  if (req.url?.startsWith("/sse")) {
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.write(FIRST_EVENT);
    return res.end(REST.join(""));
  }
  res.writeHead(200, { "content-type": "application/octet-stream" });
  for (let sent = 0; sent < BIG_BYTES; sent += CHUNK.length) if (!res.write(CHUNK)) await once(res, "drain");
  res.end();
});
upstream.listen(0, "127.0.0.1", () => console.log(upstream.address().port));
process.on("SIGTERM", () => upstream.close(() => process.exit(0)));
