import type { LoginRequest, LoginResponse } from "#shared/auth";
import { api } from "../../../lib/http";

/** POST /api/v1/auth/phone/login; a wrong code is reported by the shared client with the server's message. */
export function login(body: LoginRequest): Promise<LoginResponse> {
  return api<LoginResponse>("/api/v1/auth/phone/login", { method: "POST", body });
}
