import type { LoginRequest, LoginResponse } from "#shared/auth";
import { api } from "../../../lib/http";

/**
 * POST /api/v1/auth/phone/login; a wrong code is reported by the shared client with the server's
 * message. A 403 (an account the operator disabled) is the caller's to report: the shared client
 * would say only "no permission".
 */
export function login(body: LoginRequest): Promise<LoginResponse> {
  return api<LoginResponse>("/api/v1/auth/phone/login", { method: "POST", body, quiet: [403] });
}
