import { api } from "../../../lib/http";

export interface LoginRequest {
  telephone: string;
  code: string;
  recommendCode: string;
}

/** POST /api/v1/auth/phone/login; a wrong code is reported by the shared client with the server's message. */
export function login(body: LoginRequest): Promise<{ csrf_token: string }> {
  return api<{ csrf_token: string }>("/api/v1/auth/phone/login", { method: "POST", body });
}
