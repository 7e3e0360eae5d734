import { GATEWAY_ERRORS, type GatewayErrorCode } from "#shared/gateway";

export class GatewayError extends Error {
  readonly status: number;
  constructor(
    public readonly code: GatewayErrorCode,
    message?: string,
    public readonly headers: Record<string, string> = {},
  ) {
    super(message ?? GATEWAY_ERRORS[code].message);
    this.name = "GatewayError";
    this.status = GATEWAY_ERRORS[code].status;
  }

  toJSON() {
    return { error: { code: this.code, message: this.message } };
  }
}
