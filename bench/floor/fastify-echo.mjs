/**
 * Fastify's own floor: the project's Fastify with one route that echoes the request body with its
 * content type, read as the gateway reads it (its stream, by listeners), with no hooks, no logger
 * and no plugins. Prints its port once it listens; SIGTERM ends it.
 */
import Fastify from "fastify";

const app = Fastify({ logger: false });
app.removeAllContentTypeParsers();
app.addContentTypeParser(/^/, (_request, payload, done) => done(null, payload));
app.post("/", (request, reply) => {
  const chunks = [];
  request.body.on("data", (chunk) => chunks.push(chunk));
  request.body.on("end", () => reply.type(request.headers["content-type"] ?? "application/octet-stream").send(Buffer.concat(chunks)));
  return reply;
});
await app.listen({ port: 0, host: "127.0.0.1" });
console.log(app.server.address().port);
process.on("SIGTERM", () => app.close().then(() => process.exit(0)));
