import { FetchError, ofetch } from "ofetch";
import { t, useLanguage } from "../i18n";
import "../i18n/console-messages";
import { enConsole } from "../i18n/en-console";
import { useSession } from "./session-store";
import { siteConfig } from "./site-config";
import { toast } from "./toast";

/** SPEC.md §7: idempotent methods are not retried; the others are retried once on these statuses. */
export const RETRY_STATUSES = [408, 409, 425, 429, 500, 502, 503, 504];
const IDEMPOTENT_METHODS = new Set(["GET", "HEAD", "OPTIONS", "PUT", "DELETE"]);

export interface ApiOptions {
  method?: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  body?: unknown;
  query?: Record<string, string | number | boolean | undefined>;
  /** Statuses (or all, with true) the caller reports itself instead of the shared toasts. */
  quiet?: boolean | number[];
  signal?: AbortSignal;
  /** "blob" for downloads such as CSV exports; JSON otherwise. */
  responseType?: "json" | "blob";
  /** The caller's Idempotency-Key, kept across its own repeats of one action (a new one per call otherwise). */
  idempotencyKey?: string;
}

export function newIdempotencyKey(): string {
  if (typeof crypto.randomUUID === "function") return crypto.randomUUID();
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

export class ApiError extends Error {
  constructor(
    public readonly status: number | null,
    public readonly code: string | null,
    message: string,
  ) {
    super(message);
    this.name = "ApiError";
  }
}

/** The field a `validation_failed` answer names before its colon (docs/site/errors.md), or null. */
export function refusedField(error: unknown): string | null {
  if (!(error instanceof ApiError) || error.code !== "validation_failed") return null;
  return /^([\w.]+): /.exec(error.message)?.[1] ?? null;
}

/**
 * What a refusal says to the user: the server's message (English, written for people), or in
 * another language the catalogue's words for its code.
 */
function serverMessage(data: unknown): string | null {
  if (!data || typeof data !== "object") return null;
  const code = "code" in data && typeof data.code === "string" ? data.code : null;
  if (code && code in enConsole.apiErrors && useLanguage.getState().language !== "en") return t(`apiErrors.${code as keyof typeof enConsole.apiErrors}`);
  return "message" in data && typeof data.message === "string" && data.message ? data.message : null;
}

/** SPEC.md §8: what the user is told, or done for them, for a failed call. */
export function reportFailure(status: number | null, data: unknown): void {
  // No response at all: the request timed out or never reached the server.
  if (status === null) return toast("error", t("errors.timeout"));
  switch (status) {
    case 401: {
      const session = useSession.getState();
      session.clearUserInfo();
      session.openLoginModal();
      return;
    }
    case 404:
      return toast("error", t("errors.notFound"));
    case 500:
      return toast("error", t("errors.internal"));
    case 403:
      return toast("error", t("errors.forbidden"));
    case 429:
      return toast("error", t("errors.tooManyRequests"));
    default:
      // An empty body (a gateway that gave up waiting) is SPEC.md §8's "no response body".
      if (data === undefined || data === null || data === "") return toast("error", t("errors.timeout"));
      // A validation message names the API's fields ("webhookUrl: …"); the forms check what they can before sending.
      if (typeof data === "object" && "code" in data && data.code === "validation_failed") return toast("error", t("errors.invalidInput"));
      return toast("error", serverMessage(data) ?? t("errors.unknown"));
  }
}

function isQuiet(quiet: ApiOptions["quiet"], status: number | null): boolean {
  if (quiet === true) return true;
  return Array.isArray(quiet) && status !== null && quiet.includes(status);
}

/** The one client every call goes through (SPEC.md §7). */
export async function api<T>(path: string, options: ApiOptions = {}): Promise<T> {
  const method = options.method ?? "GET";
  const headers: Record<string, string> = { accept: "application/json" };
  const token = useSession.getState().token;
  if (token) headers.authorization = `Bearer ${token}`;
  const idempotent = IDEMPOTENT_METHODS.has(method);
  // Created once per logical request, so the retry below carries the same key; a PUT carries the one its form gives.
  if (!idempotent || options.idempotencyKey) headers["idempotency-key"] = options.idempotencyKey ?? newIdempotencyKey();
  try {
    return await ofetch<T>(`${siteConfig.apiBase}${path}`, {
      method,
      body: options.body as Record<string, unknown> | undefined,
      query: options.query,
      headers,
      signal: options.signal,
      responseType: options.responseType as "json" | undefined,
      retry: idempotent ? 0 : 1,
      retryDelay: 500,
      retryStatusCodes: RETRY_STATUSES,
      timeout: 20_000,
    });
  } catch (error) {
    const status = error instanceof FetchError ? (error.response?.status ?? null) : null;
    const data: unknown = error instanceof FetchError ? error.data : undefined;
    if (status === 401 || !isQuiet(options.quiet, status)) reportFailure(status, data);
    const code = data && typeof data === "object" && "code" in data && typeof data.code === "string" ? data.code : null;
    throw new ApiError(status, code, serverMessage(data) ?? (error instanceof Error ? error.message : String(error)));
  }
}
