import { useSyncExternalStore } from "react";
import { SITE_CONFIG_DEFAULTS, SITE_IDENTITY_DEFAULTS, type SiteConfig, type SiteIdentity } from "#shared/site-config";

export type LegalIdentity = Omit<SiteIdentity, "siteName">;

/**
 * The settings as the pages read them. The legal pages' names (company, contact, effective date)
 * come with the server's settings; a prerendered page's are the build's, which only the legal
 * pages' own code holds (features/legal), keeping them out of every other page's first load.
 */
export type WebSiteConfig = Omit<SiteConfig, keyof LegalIdentity> & Partial<LegalIdentity>;

const siteName: string | undefined = import.meta.env.VITE_SITE_NAME ?? import.meta.env.SITE_NAME;

/** What prerendered pages show: the build's environment (vite.config.ts exposes these variables). */
const defaults: WebSiteConfig = { siteName: siteName || SITE_IDENTITY_DEFAULTS.siteName, ...SITE_CONFIG_DEFAULTS };


function read(): WebSiteConfig {
  if (typeof document === "undefined") return defaults;
  const meta = document.querySelector('meta[name="site-config"]')?.getAttribute("content");
  if (!meta) return defaults;
  try {
    return { ...defaults, ...(JSON.parse(meta) as Partial<SiteConfig>) };
  } catch (error) {
    console.warn("site-config meta is not JSON: using the build's defaults", error);
    return defaults;
  }
}

export const siteConfig: WebSiteConfig = read();

const unchanging = () => () => {};

/**
 * The settings for rendering: while a prerendered page hydrates, the values it was prerendered
 * with (so hydration matches), then the server's, in the same pass React uses to re-render.
 */
export function useSiteConfig(): WebSiteConfig {
  return useSyncExternalStore(unchanging, () => siteConfig, () => defaults);
}
