/** 401, 403 and 407 from a tool speak of the operator's credentials for it, not the caller's. */
const CREDENTIAL_REFUSALS = new Set([401, 403, 407]);

/**
 * Whether a tool's answer is its own failure (answered `502 upstream_failed`, nothing charged, its
 * start kept for `admin calls show`) rather than an answer to the caller's request: a 5xx, or a
 * refusal of the operator's credentials. The caller's Authorization never reaches a tool
 * (gateway/handlers/http-upstream.ts), so such a refusal passed on told a developer, and the OpenAI
 * SDK as an AuthenticationError, that their own key was wrong, in the tool's words about the
 * operator's key.
 */
export const upstreamFailed = (status: number): boolean => status >= 500 || CREDENTIAL_REFUSALS.has(status);
