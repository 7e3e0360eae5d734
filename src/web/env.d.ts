/// <reference types="vite/client" />
declare const __BUILD_ID__: string;

interface ImportMetaEnv {
  readonly VITE_SITE_NAME?: string;
  readonly SITE_NAME?: string;
  readonly COMPANY_NAME?: string;
  readonly CONTACT_EMAIL?: string;
  readonly LEGAL_EFFECTIVE_DATE?: string;
}

/** The console's antd stylesheet, generated at build time (scripts/antd-styles): its parts' URLs in cascade order; null in development. */
declare module "virtual:antd-console-css" {
  const hrefs: string[] | null;
  export default hrefs;
}

/** The theme's and the components' tokens as antd derives them, from the build (scripts/antd-styles, decision 041); null in development. */
declare module "virtual:antd-console-token" {
  const seed: import("./lib/antd-token-seed").AntdCacheSeed | null;
  export default seed;
}
