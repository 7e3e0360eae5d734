import "./lib/zod-jitless";
import { useEffect, lazy, Suspense } from "react";
import { Links, Meta, Outlet, Scripts, ScrollRestoration, isRouteErrorResponse, useLocation } from "react-router";
import type { Route } from "./+types/root";
import { applyLanguage, preferredLanguage } from "./i18n";
import { installChunkReloadGuard, loadChunk } from "./lib/chunk-reload";
import { replayEarlyInput } from "./lib/early-input";
import { useSession } from "./lib/session-store";
import { siteConfig, useSiteConfig } from "./lib/site-config";
import "./app.css";

if (typeof window !== "undefined") installChunkReloadGuard();

const LoginModal = lazy(() => loadChunk(() => import("./features/auth/login-modal")));
// What the first paint does not show loads after it, keeping the landing page's first load small.
const RouteErrorPage = lazy(() => loadChunk(() => import("./components/error-pages")));
/** The poller for newer builds, once loaded after the first paint: until then no newer build can have been seen. */
let buildUpdates: typeof import("./lib/build-updates") | undefined;

/** The title in the HTML of the SPA fallback (the console's pages, a 404); prerendered pages' routes name themselves. */
export function meta() {
  return [{ title: siteConfig.siteName }];
}

export function Layout({ children }: { children: React.ReactNode }) {
  return (
    <html lang="en">
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="description" content="Metered developer APIs paid from one prepaid balance." />
        <link rel="icon" href="/favicon.svg" type="image/svg+xml" />
        <Meta />
        <Links />
      </head>
      <body>
        {children}
        <ScrollRestoration />
        <Scripts />
      </body>
    </html>
  );
}

/**
 * What the pages served from the SPA fallback (the console, 404s) show from their first byte until
 * their code has loaded: the site's bar, where the console's header then comes.
 */
export function HydrateFallback() {
  const { siteName } = useSiteConfig();
  return (
    <header className="site-header" data-testid="page-frame">
      <span className="brand">{siteName}</span>
    </header>
  );
}

function SessionBootstrap() {
  const { restored, token, userInfo, restore } = useSession();
  useEffect(() => {
    const search = window.location.search;
    loadChunk(() => import("./features/auth/referral"))
      .then(({ rememberReferralFromUrl }) => rememberReferralFromUrl(search))
      .catch((error: unknown) => console.error("the referral code in the address could not be kept", error));
    restore();
    void applyLanguage(preferredLanguage());
    let unmounted = false;
    let stopWatching: (() => void) | undefined;
    loadChunk(() => import("./lib/build-updates"))
      .then((module) => {
        buildUpdates = module;
        if (!unmounted) stopWatching = module.watchForNewBuilds();
      })
      .catch((error: unknown) => console.error("the check for newer builds could not be loaded", error));
    return () => {
      unmounted = true;
      stopWatching?.();
    };
  }, [restore]);
  useEffect(() => {
    // The HTTP client loads on demand, keeping it out of the landing page's first load.
    if (restored && token && !userInfo) {
      // A failed request has told the user already (lib/http.ts); what else fails is only logged here.
      loadChunk(() => import("./lib/api/get-user-info"))
        .then(({ loadUserInfo }) => loadUserInfo())
        .catch((error: unknown) => console.error("the user info could not be loaded", error));
    }
  }, [restored, token, userInfo]);
  return null;
}

/** SPEC.md §4: once a newer build is announced, the next navigation loads it with a full reload. */
function ReloadOnNavigationWhenStale() {
  const location = useLocation();
  useEffect(() => {
    if (buildUpdates?.newerBuildAvailable()) window.location.reload();
  }, [location.pathname]);
  return null;
}

function LoginModalHost() {
  const open = useSession((s) => s.loginModal);
  if (!open) return null;
  return (
    <Suspense fallback={null}>
      <LoginModal />
    </Suspense>
  );
}

export default function App() {
  // Hydrated, and rendered with the session restored: the clicks and language choices made before,
  // on a prerendered (signed-out) page, reach the handlers of the page as the user will see it.
  const restored = useSession((s) => s.restored);
  useEffect(() => {
    if (restored) replayEarlyInput();
  }, [restored]);
  return (
    <>
      <SessionBootstrap />
      <ReloadOnNavigationWhenStale />
      <Outlet />
      <LoginModalHost />
    </>
  );
}

/**
 * The error page, and the 404 page as the 404 routes' own boundary (routes/not-found.tsx). Here at
 * the root it is shown instead of App, so it applies the reader's language itself: without, an
 * error page opened directly stayed in the HTML's English.
 */
export function ErrorBoundary({ error }: Route.ErrorBoundaryProps) {
  const notFound = isRouteErrorResponse(error) && error.status === 404;
  if (!notFound && typeof window !== "undefined") console.error(error);
  useEffect(() => {
    void applyLanguage(preferredLanguage());
  }, []);
  return (
    <Suspense fallback={null}>
      <RouteErrorPage notFound={notFound} />
    </Suspense>
  );
}
