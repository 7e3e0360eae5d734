/**
 * SPEC.md §3: recommendCode comes from the page's `r` parameter; kept for the browser session. The
 * public pages' loader (scripts/public-pages.ts) keeps it too, before the app has started.
 */
export const REFERRAL_KEY = "recommend-code";
export const REFERRAL_CODE = /^[A-Za-z0-9_-]{1,64}$/;

export function rememberReferralFromUrl(search: string): void {
  const code = new URLSearchParams(search).get("r");
  if (!code || !REFERRAL_CODE.test(code)) return;
  try {
    window.sessionStorage.setItem(REFERRAL_KEY, code);
  } catch {
    /* storage disabled: the code is lost with the page, nothing else */
  }
}

export function rememberedReferral(): string {
  try {
    return window.sessionStorage.getItem(REFERRAL_KEY) ?? "";
  } catch {
    return "";
  }
}
