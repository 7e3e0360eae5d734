import { QueryClient } from "@tanstack/react-query";
import { loadUserInfo } from "./api/get-user-info";
import { useSession } from "./session-store";

/** The console's queries: one cache for its layout, its pages and their loaders. */
export const consoleQueryClient = new QueryClient({
  defaultOptions: { queries: { retry: false, refetchOnWindowFocus: false, staleTime: 10_000 } },
});

/**
 * A console page's `clientLoader`: starts the user info and every query the page shows at once, in
 * parallel with the console's stylesheet and before React renders anything (decision 037), and
 * resolves when they have answered. The page then renders once, from the cache, as a transition;
 * no answer arrives in the middle of it to re-render a card synchronously, and no request waits
 * for the one before it. Signed out, it does nothing (the layout shows the login prompt).
 * Failures are left to the page: its query, failed in the cache, shows or refetches as before.
 */
export async function loadConsoleData(prefetch: (client: QueryClient, token: string) => Promise<void>[]): Promise<null> {
  if (typeof window === "undefined") return null;
  // The router calls the loaders in the task that has just run the route modules (antd's among them):
  // their requests start in a task of their own instead of lengthening that one (decision 039).
  await new Promise((resolve) => setTimeout(resolve, 0));
  // A first load: the loader runs before the root has rendered, so it restores the session itself
  // (the root's restore then finds the same token): the requests below carry it.
  if (!useSession.getState().restored) useSession.getState().restore();
  const { token } = useSession.getState();
  if (!token) return null;
  await Promise.all([loadUserInfo().catch((error: unknown) => console.error("the user info could not be loaded", error)), ...prefetch(consoleQueryClient, token)]);
  return null;
}
