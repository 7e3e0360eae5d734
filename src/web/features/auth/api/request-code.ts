import { api } from "../../../lib/http";

export interface CodeRequest {
  telephone: string;
  captchaResult: string;
}

export interface CodeResponse {
  message: string;
  status: "success" | "failed";
}

/** POST /api/v1/auth/phone/verification_code; the caller reports every failure itself. */
export function requestCode(body: CodeRequest): Promise<CodeResponse> {
  return api<CodeResponse>("/api/v1/auth/phone/verification_code", { method: "POST", body, quiet: true });
}
