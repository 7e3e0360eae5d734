import type { ApplicationList } from "../../../../shared/applications";
import { api } from "../../../lib/http";

export const APPLICATIONS_PATH = "/api/v1/console/applications";

export function listApplications(): Promise<ApplicationList> {
  return api<ApplicationList>(APPLICATIONS_PATH);
}

/** Keyed by the session token, so another sign-in never sees the previous user's applications. */
export function applicationsQuery(token: string | null) {
  return { queryKey: ["applications", token], queryFn: listApplications };
}
