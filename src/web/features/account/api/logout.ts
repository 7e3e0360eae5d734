import { api } from "../../../lib/http";

/** POST /api/v1/auth/logout: ends this session on the server. */
export function logout(): Promise<unknown> {
  return api("/api/v1/auth/logout", { method: "POST", quiet: true });
}

/** POST /api/v1/auth/logout-all: ends every session of the user, on every device. */
export function logoutAll(): Promise<unknown> {
  return api("/api/v1/auth/logout-all", { method: "POST", quiet: true });
}
