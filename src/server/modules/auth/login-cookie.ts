import type { FastifyReply, FastifyRequest } from "fastify";
import { hmacHex, randomToken } from "../../lib/crypto";

/**
 * The browser that asks for a login code gets this HttpOnly cookie; the code answers only to a
 * login that carries it back (decision 017), so guesses from anywhere else never reach the code.
 * It is issued with the captcha settings, before the code request: a code request whose answer was
 * lost and is replayed (Idempotency-Key) sets no cookie, and the browser must hold it already.
 */
export const LOGIN_CLIENT_COOKIE = "login_client";
/** The captcha settings and the phone login routes. */
const COOKIE_PATH = "/api/v1/auth";
const COOKIE_MAX_AGE_SECONDS = 365 * 86_400;
const VALUE_PATTERN = /^[A-Za-z0-9_-]{43}$/;

/** The request's login cookie, when it holds one this server could have issued. */
function cookieValue(request: FastifyRequest): string | null {
  const value = request.cookies[LOGIN_CLIENT_COOKIE];
  return value && VALUE_PATTERN.test(value) ? value : null;
}

/** The key codes and quotas of this browser are stored under, or null for a request without the cookie. */
export function loginClientOf(secret: string, request: FastifyRequest): string | null {
  const value = cookieValue(request);
  return value === null ? null : hmacHex(secret, `login-client:${value}`);
}

/** The browser's key, issuing it a new login cookie first when it has none. */
export function ensureLoginClient(secret: string, request: FastifyRequest, reply: FastifyReply, secure: boolean): string {
  const value = cookieValue(request) ?? randomToken(32);
  // Sent on every code request, so a browser in steady use keeps the same cookie for a year.
  reply.setCookie(LOGIN_CLIENT_COOKIE, value, { httpOnly: true, sameSite: "strict", secure, path: COOKIE_PATH, maxAge: COOKIE_MAX_AGE_SECONDS });
  return hmacHex(secret, `login-client:${value}`);
}
