/**
 * The floor: a bare `node:http` server that echoes the request body with its content type, and
 * nothing else. Prints its port once it listens; SIGTERM ends it. BARE_HEADERS (a JSON object) adds
 * those headers to every answer, an x-request-id among them made fresh for each.
 */
import http from "node:http";

const { "x-request-id": requestId, ...extra } = JSON.parse(process.env.BARE_HEADERS ?? "{}");

const server = http.createServer((req, res) => {
  const chunks = [];
  req.on("data", (chunk) => chunks.push(chunk));
  req.on("end", () => {
    const body = Buffer.concat(chunks);
    res.writeHead(200, { ...extra, ...(requestId && { "x-request-id": crypto.randomUUID() }), "content-type": req.headers["content-type"] ?? "application/octet-stream", "content-length": body.length });
    res.end(body);
  });
});
server.listen(0, "127.0.0.1", () => console.log(server.address().port));
process.on("SIGTERM", () => server.close(() => process.exit(0)));
