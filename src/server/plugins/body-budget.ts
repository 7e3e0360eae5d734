import { Transform } from "node:stream";
import type { FastifyInstance } from "fastify";
import fp from "fastify-plugin";

/** The memory that request bodies hold together, shared by every scope that bounds its bodies with it. */
export interface BodyBudget {
  readonly limitBytes: number;
  held: number;
}

export function createBodyBudget(limitBytes: number): BodyBudget {
  return { limitBytes, held: 0 };
}

/**
 * Bounds the memory that request bodies hold while they arrive and until their answer is sent:
 * past the budget's limit for all requests together (every route family counts against one
 * budget), a body gets 503 at once instead of growing the process; `busy` is that 503 in the
 * shape of the scope's route family. With REQUEST_TIMEOUT_SECONDS this bounds what connections
 * that send no key, or never finish their body, can hold (issue 23 §10). Registered in each
 * family's scope (app.ts).
 */
/**
 * A body of at most this many declared bytes takes its whole length from the budget before it is
 * read, with no stream in between: it arrives in a packet or two, so counting it as it arrives
 * would bound nothing more, and the stream cost every small call more than its parsing.
 */
export const RESERVED_UPFRONT_BYTES = 64 * 1024;

export default fp(
  async function bodyBudgetPlugin(app: FastifyInstance, opts: { budget: BodyBudget; busy: () => Error }) {
    const { budget, busy } = opts;
    app.addHook("preParsing", (request, reply, payload, done) => {
      const declared = request.headers["content-length"];
      if (declared === undefined && request.headers["transfer-encoding"] === undefined) return done(null, payload);
      let mine = 0;
      const release = () => {
        budget.held -= mine;
        mine = 0;
      };
      // Node's parser has checked the header and stops the body at that length.
      const length = declared === undefined ? Infinity : Number(declared);
      if (length <= RESERVED_UPFRONT_BYTES) {
        if (budget.held + length > budget.limitBytes) return done(busy());
        budget.held += length;
        mine = length;
        reply.raw.once("close", release);
        return done(null, payload);
      }
      reply.raw.once("close", release);
      const bounded = new Transform({
        transform(chunk: Buffer, _encoding, callback) {
          if (budget.held + chunk.length > budget.limitBytes) {
            release();
            callback(busy());
            return;
          }
          budget.held += chunk.length;
          mine += chunk.length;
          callback(null, chunk);
        },
      }).on("error", release);
      payload.on("error", (error) => bounded.destroy(error));
      done(null, payload.pipe(bounded) as unknown as typeof payload);
    });
  },
  { name: "body-budget" },
);
