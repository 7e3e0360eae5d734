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
export default fp(
  async function bodyBudgetPlugin(app: FastifyInstance, opts: { budget: BodyBudget; busy: () => Error }) {
    const { budget, busy } = opts;
    app.addHook("preParsing", async (request, reply, payload) => {
      if (request.headers["content-length"] === undefined && request.headers["transfer-encoding"] === undefined) return payload;
      let mine = 0;
      const release = () => {
        budget.held -= mine;
        mine = 0;
      };
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
      return payload.pipe(bounded) as unknown as typeof payload;
    });
  },
  { name: "body-budget" },
);
