import { Readable } from "node:stream";
import type { FastifyInstance } from "fastify";
import { BUILTIN_MAX_REQUEST_BYTES, readWhole } from "./request-body";

/** The benchmark's baseline: the same server and body handling, with no key, no charge, no database. */
export function unmeteredEchoRoute(app: FastifyInstance): void {
  app.post("/echo", async (request, reply) =>
    reply
      .type(request.headers["content-type"] ?? "application/octet-stream")
      .send(await readWhole(request.body instanceof Readable ? request.body : Buffer.alloc(0), BUILTIN_MAX_REQUEST_BYTES)),
  );
}
