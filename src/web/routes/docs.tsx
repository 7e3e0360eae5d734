import { data, redirect, type ClientLoaderFunctionArgs } from "react-router";
import { docsRedirectTarget } from "#shared/site-routes";

/** A missing doc's 404 shows inside App, as routes/not-found.tsx's does. */
export { ErrorBoundary } from "../root";

/**
 * Docs are static pages served by the server. The client router applies SPEC.md §2's `.html`
 * rule and then leaves the app for the page; if the app itself was served at a docs address,
 * the server had no such page, so it is a 404.
 */
export function clientLoader({ request }: ClientLoaderFunctionArgs) {
  const url = new URL(request.url);
  const target = docsRedirectTarget(url.pathname);
  if (target) return redirect(target + url.search);
  if (url.href !== window.location.href) {
    window.location.assign(url.href);
    return new Promise<never>(() => {});
  }
  throw data(null, { status: 404 });
}

export default function Docs() {
  return null;
}
