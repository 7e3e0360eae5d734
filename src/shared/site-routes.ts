/** The pages of SPEC.md §2, shared by the client router and the server's status decisions. */
export const CONSOLE_PAGES = [
  "/console/info",
  "/console/api-keys",
  "/console/apply",
  "/console/billing-details",
  "/console/charge-details",
] as const;

export const PRERENDERED_PATHS = ["/", "/privacy", "/protocol-serve", "/service-level"] as const;

export const CONSOLE_HOME = "/console/info";

export const SPA_PATHS: ReadonlySet<string> = new Set<string>([...PRERENDERED_PATHS, ...CONSOLE_PAGES]);

/**
 * SPEC.md §2: a path `/docs` or under `/docs/` that does not end in `.html` gets `.html` appended
 * (a trailing slash is dropped first, so a page's address with a slash after it lands on the page).
 * Returns the target path, or null when no redirect applies.
 */
export function docsRedirectTarget(pathname: string): string | null {
  if (pathname !== "/docs" && !pathname.startsWith("/docs/")) return null;
  if (pathname.endsWith(".html")) return null;
  const trimmed = pathname.replace(/\/+$/, "");
  // A page's own address with a slash after it (`/docs/quickstart.html/`) is that page, not `….html.html`.
  if (trimmed.endsWith(".html")) return trimmed;
  return `${trimmed === "" ? "/docs" : trimmed}.html`;
}
