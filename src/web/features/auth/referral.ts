/** SPEC.md §3: recommendCode comes from the page's `r` parameter; kept for the browser session. */
const KEY = "recommend-code";
const CODE = /^[A-Za-z0-9_-]{1,64}$/;

export function rememberReferralFromUrl(search: string): void {
  const code = new URLSearchParams(search).get("r");
  if (!code || !CODE.test(code)) return;
  try {
    window.sessionStorage.setItem(KEY, code);
  } catch {
    /* storage disabled: the code is lost with the page, nothing else */
  }
}

export function rememberedReferral(): string {
  try {
    return window.sessionStorage.getItem(KEY) ?? "";
  } catch {
    return "";
  }
}
