/// <reference types="vite/client" />
declare const __BUILD_ID__: string;

interface ImportMetaEnv {
  readonly VITE_SITE_NAME?: string;
}
