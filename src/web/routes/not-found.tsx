import { data } from "react-router";

/**
 * The 404 is this route's own error, not the root's: shown inside App, its page has what every page
 * has (the session restored, so the header shows the reader, and the login dialog its Log in opens).
 */
export { ErrorBoundary } from "../root";

export function clientLoader(): never {
  throw data(null, { status: 404 });
}

export default function NotFound() {
  return null;
}
