import "./lib/zod-jitless";
import { useEffect, lazy, Suspense } from "react";
import { Links, Meta, Outlet, Scripts, ScrollRestoration, isRouteErrorResponse, useLocation } from "react-router";
import type { Route } from "./+types/root";
import { applyLanguage, preferredLanguage } from "./i18n";
import { newerBuildAvailable, watchForNewBuilds } from "./lib/build-updates";
import { installChunkReloadGuard, loadChunk } from "./lib/chunk-reload";
import { useSession } from "./lib/session-store";
import { siteConfig } from "./lib/site-config";
import { ErrorPage, NotFoundPage } from "./components/error-pages";
import { rememberReferralFromUrl } from "./features/auth/referral";
import "./app.css";

if (typeof window !== "undefined") installChunkReloadGuard();

const LoginModal = lazy(() => loadChunk(() => import("./features/auth/login-modal")));

export function Layout({ children }: { children: React.ReactNode }) {
  return (
    <html lang="en">
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{siteConfig.siteName}</title>
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

function SessionBootstrap() {
  const { restored, token, userInfo, restore } = useSession();
  useEffect(() => {
    rememberReferralFromUrl(window.location.search);
    restore();
    applyLanguage(preferredLanguage()).catch(() => {});
    return watchForNewBuilds();
  }, [restore]);
  useEffect(() => {
    // The HTTP client loads on demand, keeping it out of the landing page's first load.
    if (restored && token && !userInfo) {
      loadChunk(() => import("./features/account/api/get-user-info"))
        .then(({ refreshUserInfo }) => refreshUserInfo())
        .catch(() => {});
    }
  }, [restored, token, userInfo]);
  return null;
}

/** SPEC.md §4: once a newer build is announced, the next navigation loads it with a full reload. */
function ReloadOnNavigationWhenStale() {
  const location = useLocation();
  useEffect(() => {
    if (newerBuildAvailable()) window.location.reload();
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
  return (
    <>
      <SessionBootstrap />
      <ReloadOnNavigationWhenStale />
      <Outlet />
      <LoginModalHost />
    </>
  );
}

export function ErrorBoundary({ error }: Route.ErrorBoundaryProps) {
  if (isRouteErrorResponse(error) && error.status === 404) return <NotFoundPage />;
  if (typeof window !== "undefined") console.error(error);
  return <ErrorPage />;
}
