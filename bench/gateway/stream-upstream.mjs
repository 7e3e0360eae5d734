/**
 * The streaming benchmark's fake upstream, in a process of its own as a real upstream is: `/sse…`
 * writes the server-sent events SSE_EVENTS (the first at once) and ends; `/llm…` answers a streamed
 * Chat Completions request with LLM_EVENTS, and LLM_USAGE_EVENT when it asks for usage; anything else is a
 * chunked binary body of BIG_BYTES, written with back-pressure. Prints its port once it listens.
 */
import { once } from "node:events";
import http from "node:http";

const BIG_BYTES = Number(process.env.BIG_BYTES);
const CHUNK = Buffer.alloc(64 * 1024, 7);
const [FIRST_EVENT, ...REST] = JSON.parse(process.env.SSE_EVENTS);

/** An OpenAI-compatible chat stream: LLM_EVENTS (the first at once), then the usage chunk if the request asked for it. */
const [LLM_FIRST, ...LLM_REST] = JSON.parse(process.env.LLM_EVENTS);
const LLM_USAGE = process.env.LLM_USAGE_EVENT;

async function llm(req, res) {
  let body = "";
  for await (const chunk of req) body += chunk;
  res.writeHead(200, { "content-type": "text/event-stream" });
  res.write(LLM_FIRST);
  res.end([...LLM_REST.slice(0, -1), ...(JSON.parse(body).stream_options?.include_usage ? [LLM_USAGE] : []), LLM_REST.at(-1)].join(""));
}

const upstream = http.createServer(async (req, res) => {
  if (req.url?.startsWith("/llm")) return llm(req, res);
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
