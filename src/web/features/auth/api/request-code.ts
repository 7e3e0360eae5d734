import type { CodeRequest, CodeResponse } from "#shared/auth";
import { api } from "../../../lib/http";

export type { CodeRequest, CodeResponse };

/** POST /api/v1/auth/phone/verification_code; the caller reports every failure itself. */
export function requestCode(body: CodeRequest): Promise<CodeResponse> {
  return api<CodeResponse>("/api/v1/auth/phone/verification_code", { method: "POST", body, quiet: true });
}
