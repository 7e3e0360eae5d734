import { siteConfig } from "./site-config";

/** SPEC.md §9: the token lives in localStorage under `csrf-token` and in a cookie `token` for 7 days. */
export const TOKEN_STORAGE_KEY = "csrf-token";
export const TOKEN_COOKIE = "token";
export const TOKEN_MAX_AGE_SECONDS = 604_800;

function cookieAttributes(): string {
  const parts = ["Path=/", "SameSite=Lax"];
  const host = window.location.hostname;
  const isLocal = host === "localhost" || /^[\d.]+$/.test(host) || host.includes(":");
  if (siteConfig.cookieDomain && !isLocal) parts.push(`Domain=${siteConfig.cookieDomain}`);
  if (window.location.protocol === "https:") parts.push("Secure");
  return parts.join("; ");
}

export function readStoredToken(): string | null {
  try {
    return window.localStorage.getItem(TOKEN_STORAGE_KEY);
  } catch {
    return null;
  }
}

export function storeToken(token: string): void {
  try {
    window.localStorage.setItem(TOKEN_STORAGE_KEY, token);
  } catch {
    /* storage disabled: the cookie and memory still hold the session */
  }
  document.cookie = `${TOKEN_COOKIE}=${encodeURIComponent(token)}; Max-Age=${TOKEN_MAX_AGE_SECONDS}; ${cookieAttributes()}`;
}

export function forgetToken(): void {
  try {
    window.localStorage.removeItem(TOKEN_STORAGE_KEY);
  } catch {
    /* nothing stored */
  }
  document.cookie = `${TOKEN_COOKIE}=; Max-Age=0; ${cookieAttributes()}`;
}
