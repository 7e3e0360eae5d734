import { useSyncExternalStore } from "react";
import { SITE_CONFIG_DEFAULTS, siteIdentityFrom, type SiteConfig } from "#shared/site-config";

/** What prerendered pages show: the build's environment (vite.config.ts exposes these variables). */
const defaults: SiteConfig = {
  ...siteIdentityFrom({
    siteName: import.meta.env.VITE_SITE_NAME ?? import.meta.env.SITE_NAME,
    companyName: import.meta.env.COMPANY_NAME,
    contactEmail: import.meta.env.CONTACT_EMAIL,
    legalEffectiveDate: import.meta.env.LEGAL_EFFECTIVE_DATE,
  }),
  ...SITE_CONFIG_DEFAULTS,
};

function read(): SiteConfig {
  if (typeof document === "undefined") return defaults;
  const meta = document.querySelector('meta[name="site-config"]')?.getAttribute("content");
  if (!meta) return defaults;
  try {
    return { ...defaults, ...(JSON.parse(meta) as Partial<SiteConfig>) };
  } catch (error) {
    console.warn(`The page's site-config meta tag is not JSON (${String(error)}): showing the build's defaults instead of the server's settings`);
    return defaults;
  }
}

export const siteConfig: SiteConfig = read();

const unchanging = () => () => {};

/**
 * The settings for rendering: while a prerendered page hydrates, the values it was prerendered
 * with (so hydration matches), then the server's, in the same pass React uses to re-render.
 */
export function useSiteConfig(): SiteConfig {
  return useSyncExternalStore(unchanging, () => siteConfig, () => defaults);
}
