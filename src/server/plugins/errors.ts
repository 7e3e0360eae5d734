import type { FastifyError, FastifyInstance } from "fastify";
import fp from "fastify-plugin";
import { hasZodFastifySchemaValidationErrors } from "fastify-type-provider-zod";
import { ERROR_CODES } from "../../shared/errors";
import { AppError } from "../errors";

/** One error handler for the whole API: JSON `{code, message}`, 5xx internals never leave the server. */
export default fp(
  async function errorsPlugin(app: FastifyInstance) {
    app.setErrorHandler((error: FastifyError | AppError, request, reply) => {
      if (error instanceof AppError) {
        return reply.code(error.statusCode).headers(error.headers).send({ code: error.code, message: error.message });
      }
      if (hasZodFastifySchemaValidationErrors(error)) {
        const first = error.validation[0];
        const field = first?.instancePath.replace(/^\//, "").replace(/\//g, ".");
        const detail = first?.message ?? "invalid request";
        return reply
          .code(400)
          .send({ code: ERROR_CODES.validation, message: field ? `${field}: ${detail}` : detail });
      }
      const status = error.statusCode ?? 500;
      if (status >= 500) {
        request.log.error({ err: error }, "request failed");
        return reply.code(status).send({ code: ERROR_CODES.internal, message: "server internal error" });
      }
      if (status === 429) {
        return reply.code(429).send({ code: ERROR_CODES.rateLimited, message: "too many requests, please try later" });
      }
      return reply.code(status).send({ code: error.code?.toLowerCase() ?? ERROR_CODES.badRequest, message: error.message });
    });
  },
  { name: "errors" },
);
