import { ERROR_CODES, type ErrorCode } from "#shared/errors";

/** The one error type routes throw: a stable code, an HTTP status and a message fit for the user. */
export class AppError extends Error {
  constructor(
    public readonly statusCode: number,
    public readonly code: ErrorCode,
    message: string,
    public readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = "AppError";
  }

  static badRequest(message: string, code: ErrorCode = ERROR_CODES.badRequest) {
    return new AppError(400, code, message);
  }
  static unauthorized(message = "please log in first") {
    return new AppError(401, ERROR_CODES.unauthorized, message);
  }
  static forbidden(message = "no permission to access this resource") {
    return new AppError(403, ERROR_CODES.forbidden, message);
  }
  static notFound(message = "server resource does not exist") {
    return new AppError(404, ERROR_CODES.notFound, message);
  }
  static conflict(message: string, code: ErrorCode = ERROR_CODES.conflict) {
    return new AppError(409, code, message);
  }
  static tooManyRequests(message: string, retryAfterSeconds: number) {
    return new AppError(429, ERROR_CODES.rateLimited, message, {
      "retry-after": String(Math.max(1, Math.ceil(retryAfterSeconds))),
    });
  }
}
