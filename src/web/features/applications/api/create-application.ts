import type { Application, CreateApplicationInput } from "#shared/applications";
import { api } from "../../../lib/http";
import { APPLICATIONS_PATH } from "./list-applications";

/**
 * POST /api/v1/console/applications; the form shows a refusal (400) beside its field. The form sends
 * one Idempotency-Key per filled form, so sending it again answers with the application already made.
 */
export function createApplication({ body, idempotencyKey }: { body: CreateApplicationInput; idempotencyKey: string }): Promise<Application> {
  return api<Application>(APPLICATIONS_PATH, { method: "POST", body, quiet: [400], idempotencyKey });
}
