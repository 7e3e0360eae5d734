import type { FastifyInstance } from "fastify";
import { gatewayErrorBody } from "../../lib/error-bodies";
import { answerUnknownPaths } from "../../lib/unknown-paths";
import { GatewayError } from "./gateway-error";
import { sendGatewayError } from "./tool-response";

/** Errors and unknown routes under /v1 in this family's shape, `{error: {code, message}}`. */
export function answerErrorsAsGateway(app: FastifyInstance): void {
  app.setErrorHandler((error: Error & { statusCode?: number }, request, reply) => {
    if (error instanceof GatewayError) return sendGatewayError(reply, error);
    const status = error.statusCode ?? 500;
    if (status >= 500) request.log.error({ err: error }, "gateway call failed");
    return reply.code(status).header("cache-control", "no-store").send(gatewayErrorBody(status, status === 413 ? undefined : error.message));
  });
  answerUnknownPaths(app, (_request, reply) => reply.code(404).send(gatewayErrorBody(404)));
}
