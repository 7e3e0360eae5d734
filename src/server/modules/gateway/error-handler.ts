import type { FastifyInstance } from "fastify";
import { errorBodyFor } from "../../plugins/errors";
import { GatewayError } from "./gateway-error";
import { sendGatewayError } from "./tool-response";

/** Errors in this family's shape, `{error: {code, message}}`; unknown routes under /v1 reach the app's not-found handler. */
export function answerErrorsAsGateway(app: FastifyInstance): void {
  app.setErrorHandler((error: Error & { statusCode?: number }, request, reply) => {
    if (error instanceof GatewayError) return sendGatewayError(reply, error);
    const status = error.statusCode ?? 500;
    if (status >= 500) request.log.error({ err: error }, "gateway call failed");
    return reply.code(status).header("cache-control", "no-store").send(errorBodyFor(request.url, status, status === 413 ? undefined : error.message));
  });
}
