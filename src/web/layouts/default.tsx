import { useContext, useDeferredValue, useEffect, useLayoutEffect, useRef, useState } from "react";
import { Link, Outlet, useLoaderData, useLocation, useSearchParams } from "react-router";
import { useLanguage, useT, type MessageKey } from "../i18n";
import "../i18n/console-messages";
import { QueryClientProvider } from "@tanstack/react-query";
// antd's own copy (not a dependency of ours): its StyleContext must be the one antd reads.
import { StyleContext } from "@ant-design/cssinjs";
import { App as AntApp, ConfigProvider, Layout, Menu, Result, Button } from "antd";
import { BarsOutlined } from "@ant-design/icons";
import enUS from "antd/locale/en_US";
import zhCN from "antd/locale/zh_CN";
import { CONSOLE_PAGES } from "#shared/site-routes";
import { AccountBadge, LanguageSwitch } from "../components/site-chrome";
import { applyAntdConsoleStyles } from "../lib/antd-console-styles";
import { antdConfig } from "../lib/antd-theme";
import { seedAntdCache } from "../lib/antd-token-seed";
import antdTokenSeed from "virtual:antd-console-token";
import { consoleQueryClient } from "../lib/console-data";
import { refreshUserInfo } from "../lib/api/get-user-info";
import { useSession } from "../lib/session-store";
import { pageTitle, useDocumentTitle } from "../lib/page-title";
import { siteConfig } from "../lib/site-config";
import { withCurrency } from "../lib/money-format";
import { ConsoleUserMenu } from "../features/account/console-user-menu";

/**
 * Try it (issue 40) is a drawer over the API keys page, not a page of its own: a route of its own
 * would grow the route manifest every page loads, the landing page's first load included.
 */
const TRY_IT = "/console/api-keys?try";

const NAV_LABELS: Record<(typeof CONSOLE_PAGES)[number], MessageKey> = {
  "/console/info": "nav.info",
  "/console/api-keys": "nav.apiKeys",
  "/console/apply": "nav.apply",
  "/console/billing-details": "nav.billingDetails",
  "/console/charge-details": "nav.chargeDetails",
};


/**
 * The console renders once antd's stylesheet applies: antd then generates no styles while it renders.
 * Linked in a task of its own, not in the one that has just run the route modules (decision 039).
 */
export async function clientLoader() {
  await new Promise((resolve) => setTimeout(resolve, 0));
  return { antdStylesheet: await applyAntdConsoleStyles() };
}

// Each component decides at its first render whether antd generates its styles.
const zeroRuntimeConfig = { ...antdConfig, theme: { ...antdConfig.theme, zeroRuntime: true } };

/** The console frame. Every console page needs a session: visitors see the frame and the login modal. */
export default function ConsoleLayout() {
  const { antdStylesheet } = useLoaderData<typeof clientLoader>();
  const t = useT();
  const language = useLanguage((s) => s.language);
  const { pathname } = useLocation();
  // Below antd's md breakpoint the menu is a drawer over the page (app.css), closed again once a page is chosen.
  const [phone, setPhone] = useState(false);
  const [menuClosed, setMenuClosed] = useState(false);
  const page = pathname.replace(/\/+$/, "") as keyof typeof NAV_LABELS;
  const [params] = useSearchParams();
  const selected = page === "/console/api-keys" && params.has("try") ? TRY_IT : page;
  useDocumentTitle(NAV_LABELS[page] ? pageTitle(t(NAV_LABELS[page])) : siteConfig.siteName);
  const restored = useSession((s) => s.restored);
  const token = useSession((s) => s.token);
  const openLoginModal = useSession((s) => s.openLoginModal);
  const exactBalance = useSession((s) => s.userInfo?.exactBalance);
  // The session is restored from a store update, which React renders in one uninterrupted task: the
  // whole page at once, hundreds of milliseconds on a phone. Rendered from the deferred token, the
  // page is a transition React splits into short tasks, leaving the main thread free between them.
  // The header's user menu is small and comes with the token, in the same paint as the header's end.
  // A console page's loader restores the session before the layout's first render: from null at
  // first, the page still comes in a render of its own.
  const shownToken = useDeferredValue(token, null);
  // antd's style cache (the page's one, which every antd root shares) answers the theme's and the
  // components' tokens from the build instead of deriving them in the first renders (decision 041).
  seedAntdCache(useContext(StyleContext).cache, antdTokenSeed);

  // The page's frame from its HTML (scripts/console-shells.ts), its title and intro, lies over the
  // content area until the page (or the login prompt) renders there in its place.
  useLayoutEffect(() => {
    if (shownToken || (restored && !token)) document.getElementById("console-frame")?.remove();
  }, [shownToken, restored, token]);

  useEffect(() => {
    if (restored && !token) openLoginModal();
  }, [restored, token, openLoginModal]);

  // Money moves outside the page too (calls made with curl, an operator's credit): each console page
  // after the first (whose loader has just fetched it) fetches the user info again, so the header's
  // balance never lags behind the charges a page lists. Here, not in the loaders: their module is in
  // the landing page's first load.
  const firstPage = useRef(true);
  useEffect(() => {
    if (firstPage.current) {
      firstPage.current = false;
      return;
    }
    if (useSession.getState().userInfo) refreshUserInfo().catch(() => undefined);
  }, [pathname]);

  return (
    <QueryClientProvider client={consoleQueryClient}>
    <ConfigProvider {...(antdStylesheet ? zeroRuntimeConfig : antdConfig)} locale={language === "zh-CN" ? zhCN : enUS}>
      <AntApp>
        <Layout className="console" data-layout="default">
          <Layout.Header className="console-header">
            <Link to="/" className="brand">
              {siteConfig.siteName}
            </Link>
            <div className="site-header-end">
              <a href="/docs.html">{t("nav.docs")}</a>
              <LanguageSwitch />
              <AccountBadge />
              {/* SPEC.md's two decimals hide a change of less than a cent: the exact balance beside them where it differs. */}
              {exactBalance ? (
                <small className="account-balance-exact" data-testid="header-balance-exact">
                  ({withCurrency(exactBalance)})
                </small>
              ) : null}
              {token ? <ConsoleUserMenu /> : null}
            </div>
          </Layout.Header>
          <Layout hasSider>
            <Layout.Sider
              breakpoint="md"
              collapsedWidth={0}
              zeroWidthTriggerStyle={{ top: 0 }}
              theme="light"
              width={220}
              collapsed={menuClosed}
              onCollapse={setMenuClosed}
              onBreakpoint={setPhone}
              // antd's phone trigger is a span its click toggles: a button inside it takes the keyboard's focus and clicks.
              trigger={
                <button type="button" className="console-menu-toggle" aria-label={t("nav.consoleMenu")} aria-expanded={!menuClosed} aria-controls="console-menu">
                  <BarsOutlined />
                </button>
              }
            >
              <Menu
                id="console-menu"
                // A closed drawer's links are out of sight: out of the keyboard's way too.
                inert={phone && menuClosed}
                mode="inline"
                selectedKeys={[selected]}
                onClick={() => phone && setMenuClosed(true)}
                aria-label="console"
                items={[
                  ...CONSOLE_PAGES.map((path) => ({ key: path, label: <Link to={path}>{t(NAV_LABELS[path])}</Link> })),
                  { key: TRY_IT, label: <Link to={TRY_IT}>{t("nav.tryIt")}</Link> },
                ]}
              />
            </Layout.Sider>
            <Layout.Content className="console-content">
              {shownToken ? (
                <Outlet />
              ) : restored && !token ? (
                <Result
                  status="403"
                  title={t("pages.loginRequired")}
                  extra={
                    <Button type="primary" onClick={openLoginModal}>
                      {t("nav.login")}
                    </Button>
                  }
                />
              ) : null}
            </Layout.Content>
          </Layout>
        </Layout>
      </AntApp>
    </ConfigProvider>
    </QueryClientProvider>
  );
}
