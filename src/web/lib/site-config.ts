/** Runtime settings the server writes into every page as `<meta name="site-config">`. */
export interface SiteConfig {
  siteName: string;
  cookieDomain: string | null;
  currencySymbol: string;
  buildPollSeconds: number;
  apiBase: string;
}

const defaults: SiteConfig = {
  siteName: import.meta.env.VITE_SITE_NAME ?? "Tollgate",
  cookieDomain: null,
  currencySymbol: "¥",
  buildPollSeconds: 60,
  apiBase: "",
};

function read(): SiteConfig {
  if (typeof document === "undefined") return defaults;
  const meta = document.querySelector('meta[name="site-config"]')?.getAttribute("content");
  if (!meta) return defaults;
  try {
    return { ...defaults, ...(JSON.parse(meta) as Partial<SiteConfig>) };
  } catch {
    return defaults;
  }
}

export const siteConfig: SiteConfig = read();
