import { Link, NavLink } from "react-router";
import { LANGUAGES, applyLanguage, useLanguage, useT, type Language } from "../i18n";
import { useSession } from "../lib/session-store";
import { siteConfig } from "../lib/site-config";

export function LanguageSwitch() {
  const t = useT();
  const language = useLanguage((s) => s.language);
  return (
    <select
      className="language-switch"
      aria-label={t("nav.language")}
      value={language}
      onChange={(e) => void applyLanguage(e.target.value as Language, true)}
    >
      {LANGUAGES.map((l) => (
        <option key={l.code} value={l.code}>
          {l.label}
        </option>
      ))}
    </select>
  );
}

/** The signed-in user's phone and balance, or a log-in button for visitors. */
export function AccountBadge() {
  const t = useT();
  const userInfo = useSession((s) => s.userInfo);
  const token = useSession((s) => s.token);
  const openLoginModal = useSession((s) => s.openLoginModal);
  if (token && userInfo) {
    return (
      <Link to="/console/info" className="account-badge" data-testid="account-badge">
        <span className="account-phone">{userInfo.phone}</span>
        <span className="account-balance" data-testid="header-balance">
          {siteConfig.currencySymbol}
          {userInfo.balance}
        </span>
      </Link>
    );
  }
  if (token) return <span className="account-badge" aria-busy="true" />;
  return (
    <button type="button" className="button" onClick={openLoginModal} data-testid="header-login">
      {t("nav.login")}
    </button>
  );
}

export function SiteHeader() {
  const t = useT();
  return (
    <header className="site-header">
      <Link to="/" className="brand">
        <svg className="brand-mark" viewBox="0 0 32 32" width="28" height="28" aria-hidden="true">
          <rect width="32" height="32" rx="7" fill="#0f766e" />
          <path d="M7 10h18M9 10v14M23 10v14M7 15h18" stroke="#fff" strokeWidth="3" strokeLinecap="round" />
        </svg>
        <span className="brand-name">{siteConfig.siteName}</span>
      </Link>
      <nav className="site-nav" aria-label="main">
        <a href="/docs.html">{t("nav.docs")}</a>
        <NavLink to="/console/info">{t("nav.console")}</NavLink>
      </nav>
      <div className="site-header-end">
        <LanguageSwitch />
        <AccountBadge />
      </div>
    </header>
  );
}

export function SiteFooter() {
  const t = useT();
  return (
    <footer className="site-footer">
      <nav aria-label="legal">
        <Link to="/protocol-serve">{t("nav.userAgreement")}</Link>
        <Link to="/privacy">{t("nav.privacy")}</Link>
        <Link to="/service-level">{t("nav.serviceLevel")}</Link>
        <a href="/docs.html">{t("nav.docs")}</a>
      </nav>
      <p>
        © {new Date().getFullYear()} {siteConfig.siteName}
      </p>
    </footer>
  );
}
