/**
 * Who runs the site, as the legal pages name it. The server reads these from its environment
 * (src/server/config.ts); prerendered pages get the build's environment (src/web/lib/site-config.ts).
 */
export interface SiteIdentity {
  siteName: string;
  /** The legal entity operating the site; defaults to the site name. */
  companyName: string;
  contactEmail: string;
  /** YYYY-MM-DD: when the current user agreement, privacy agreement and service level took effect. */
  legalEffectiveDate: string;
}

export const SITE_IDENTITY_DEFAULTS = {
  siteName: "Tollgate",
  contactEmail: "support@example.com",
  legalEffectiveDate: "2026-11-22",
} as const;

/** Values as the environment gives them (unset or empty means the default). */
export function siteIdentityFrom(env: {
  siteName?: string;
  companyName?: string;
  contactEmail?: string;
  legalEffectiveDate?: string;
}): SiteIdentity {
  const siteName = env.siteName || SITE_IDENTITY_DEFAULTS.siteName;
  return {
    siteName,
    companyName: env.companyName || siteName,
    contactEmail: env.contactEmail || SITE_IDENTITY_DEFAULTS.contactEmail,
    legalEffectiveDate: env.legalEffectiveDate || SITE_IDENTITY_DEFAULTS.legalEffectiveDate,
  };
}

/** The one currency prices and balances are shown in. */
export const CURRENCY_SYMBOL = "¥";

/**
 * What the browser must know of the server's settings: the server writes it into every page as
 * `<meta name="site-config">` (plugins/web.ts); a prerendered page starts from `SITE_CONFIG_DEFAULTS`.
 */
export interface SiteConfig extends SiteIdentity {
  cookieDomain: string | null;
  currencySymbol: string;
  /** How often an open page asks whether a newer build is deployed. */
  buildPollSeconds: number;
  apiBase: string;
  /** The server's public address (PUBLIC_URL), which the docs' examples call: Try it's snippets use it too; "" where unknown. */
  publicUrl: string;
  /** How long after a code is sent the login form waits before it offers another (AUTH_CODE_RESEND_SECONDS). */
  codeResendSeconds: number;
}

export const SITE_CONFIG_DEFAULTS = {
  cookieDomain: null,
  currencySymbol: CURRENCY_SYMBOL,
  buildPollSeconds: 60,
  apiBase: "",
  publicUrl: "",
  codeResendSeconds: 60,
} as const satisfies Omit<SiteConfig, keyof SiteIdentity>;
