/**
 * The CSP of a tool's answer: the upstream's bytes served on the site's own origin. A browser that
 * renders one (text/html, SVG) gives it no origin and runs no script, form or subresource of it
 * (decision 043).
 */
export const TOOL_ANSWER_POLICY = "sandbox; default-src 'none'; frame-ancestors 'none'";
