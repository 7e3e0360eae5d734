import { Transform } from "node:stream";
import type { FastifyInstance } from "fastify";
import fp from "fastify-plugin";
import { ERROR_CODES } from "#shared/errors";
import { AppError } from "../errors";
import { GatewayError } from "../modules/gateway/gateway-error";

const RETRY_AFTER = { "retry-after": "1" };

/** 503 in the shape of the route family: the gateway's under /v1/, the console API's elsewhere. */
function busy(url: string): Error {
  return url.startsWith("/v1/")
    ? new GatewayError("server_busy", undefined, RETRY_AFTER)
    : new AppError(503, ERROR_CODES.unavailable, "the server is receiving too many request bodies at once: retry shortly", RETRY_AFTER);
}

/**
 * Bounds the memory that request bodies hold while they arrive and until their answer is sent,
 * whoever sends them: past `limitBytes` for all requests together, a body gets 503 at once
 * instead of growing the process. With REQUEST_TIMEOUT_SECONDS this bounds what connections that
 * send no key, or never finish their body, can hold (issue 23 §10).
 */
export default fp(
  async function bodyBudgetPlugin(app: FastifyInstance, opts: { limitBytes: number }) {
    let held = 0;
    app.addHook("preParsing", async (request, reply, payload) => {
      if (request.headers["content-length"] === undefined && request.headers["transfer-encoding"] === undefined) return payload;
      let mine = 0;
      const release = () => {
        held -= mine;
        mine = 0;
      };
      reply.raw.once("close", release);
      const budget = new Transform({
        transform(chunk: Buffer, _encoding, callback) {
          if (held + chunk.length > opts.limitBytes) {
            release();
            callback(busy(request.url));
            return;
          }
          held += chunk.length;
          mine += chunk.length;
          callback(null, chunk);
        },
      }).on("error", release);
      payload.on("error", (error) => budget.destroy(error));
      return payload.pipe(budget) as unknown as typeof payload;
    });
  },
  { name: "body-budget" },
);
