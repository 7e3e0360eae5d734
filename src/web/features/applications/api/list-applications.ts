import { queryOptions } from "@tanstack/react-query";
import type { ApplicationList } from "#shared/applications";
import { api } from "../../../lib/http";

export const APPLICATIONS_PATH = "/api/v1/console/applications";

export function listApplications(): Promise<ApplicationList> {
  return api<ApplicationList>(APPLICATIONS_PATH);
}

export const applicationsQueryKey = ["applications"] as const;

/** Keyed by the session token, so another sign-in never sees the previous user's applications. */
export function applicationsQueryOptions(token: string | null) {
  return queryOptions({ queryKey: [...applicationsQueryKey, token], queryFn: listApplications });
}
