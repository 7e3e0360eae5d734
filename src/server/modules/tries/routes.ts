import { Readable } from "node:stream";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { keptTriesSchema, TRIES_PER_MINUTE, TRY_BODY_MAX_BYTES, tryRequestSchema } from "#shared/tries";
import { AppError } from "../../errors";
import { noQuery } from "../../lib/no-query";
import { badPathMessage } from "../gateway/index";
import { ownKeyHash } from "../keys/index";
import { keptTries } from "./kept";
import { hangUp, startTry, tryEvents } from "./run";

const tags = ["try it"];
/** A body of TRY_BODY_MAX_BYTES written as a JSON string, every byte escaped at worst (\u00XX), and the other fields. */
const REQUEST_BYTES_MAX = TRY_BODY_MAX_BYTES * 6 + 8192;

/**
 * The console's "Try it": one of the user's keys, named by id, calls a tool through the gateway
 * as an outside caller would (decision 057). The key's secret never leaves the server.
 */
const tryRoutes: FastifyPluginAsyncZod = async (app) => {
  app.post(
    "/console/tries",
    {
      bodyLimit: REQUEST_BYTES_MAX,
      schema: {
        tags,
        summary: "Call a tool with one of your keys; the answer streams as application/x-ndjson lines: head, data…, end",
        body: tryRequestSchema,
      },
    },
    async (request, reply) => {
      const startedAt = performance.now();
      const { userId, sessionId } = request.user;
      const waitMs = await app.rateLimiter.hit(
        { key: `console-tries:${sessionId}`, limit: TRIES_PER_MINUTE, windowMs: 60_000, whenRedisDown: "local" },
        app.clock.now().getTime(),
      );
      if (waitMs > 0) throw AppError.tooManyRequests(`at most ${TRIES_PER_MINUTE} tries a minute: retry shortly`, waitMs / 1000);
      const input = request.body;
      if (Buffer.byteLength(input.body) > TRY_BODY_MAX_BYTES) throw AppError.badRequest(`body: a try sends at most ${TRY_BODY_MAX_BYTES / 1024} KB`);
      // The gateway's own rule, checked here: the in-process request would resolve "/../qrcode" to another tool before the gateway saw it.
      const pathRefused = badPathMessage(input.path);
      if (pathRefused) throw AppError.badRequest(pathRefused, "bad_path");
      const keyHash = await ownKeyHash(app.db, { userId, id: input.keyId });
      if (!keyHash) throw AppError.notFound("none of your API keys has this id");
      const idempotencyKey = request.headers["idempotency-key"];
      const started = await startTry(app, {
        userId,
        keyHash,
        clientIp: request.ip,
        idempotencyKey: typeof idempotencyKey === "string" ? idempotencyKey : undefined,
        input,
      });
      // A page that goes away hangs up at once, not when the tool next sends a part.
      reply.raw.once("close", () => {
        if (!reply.raw.writableFinished) hangUp(started);
      });
      reply.header("cache-control", "no-store").type("application/x-ndjson; charset=utf-8");
      return reply.send(Readable.from(tryEvents(app, started, startedAt)));
    },
  );

  app.get(
    "/console/tries",
    { schema: { tags, summary: "Your last tries, newest first, each body cut to 4 KB", querystring: noQuery, response: { 200: keptTriesSchema } } },
    async (request, reply) => {
      reply.header("cache-control", "no-store");
      return { tries: await keptTries(app.db, request.user.userId) };
    },
  );
};

export default tryRoutes;
