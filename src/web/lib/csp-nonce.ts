/**
 * The nonce the server gave this response's styles (src/server/plugins/web.ts), for antd's
 * CSS-in-JS; undefined in development, where no CSP is sent.
 */
export const cspNonce: string | undefined =
  typeof document === "undefined" ? undefined : document.querySelector<HTMLMetaElement>('meta[property="csp-nonce"]')?.nonce || undefined;
