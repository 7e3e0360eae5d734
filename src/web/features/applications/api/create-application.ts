import type { Application, CreateApplicationInput } from "#shared/applications";
import { api } from "../../../lib/http";
import { APPLICATIONS_PATH } from "./list-applications";

/** POST /api/v1/console/applications; the form shows a refusal (400) beside its field. */
export function createApplication(body: CreateApplicationInput): Promise<Application> {
  return api<Application>(APPLICATIONS_PATH, { method: "POST", body, quiet: [400] });
}
