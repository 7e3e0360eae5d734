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
