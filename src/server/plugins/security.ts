import type { IncomingMessage, ServerResponse } from "node:http";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import fp from "fastify-plugin";
import helmet, { type HelmetOptions } from "helmet";
import { NO_SOURCES, type CspSources } from "../providers/captcha/csp";

const join = (...parts: string[]) => parts.filter(Boolean).join(" ");

/**
 * The CSP for everything the server sends. HTML pages add hashes of their own inline scripts and a
 * per-response nonce for styles: antd writes its CSS-in-JS into <style> elements carrying that nonce.
 * No `unsafe-inline` anywhere, so style attributes in markup are refused (the CSSOM still works).
 */
export function contentSecurityPolicy(scriptHashes: readonly string[] = [], extra: CspSources = NO_SOURCES, styleNonce?: string): string {
  return [
    "default-src 'self'",
    `script-src ${join("'self'", ...scriptHashes.map((h) => `'${h}'`), ...extra.script)}`,
    `style-src ${join("'self'", styleNonce ? `'nonce-${styleNonce}'` : "")}`,
    `img-src ${join("'self' data: blob:", ...extra.img)}`,
    "font-src 'self' data:",
    `connect-src ${join("'self'", ...extra.connect)}`,
    ...(extra.frame.length > 0 ? [`frame-src ${extra.frame.join(" ")}`] : []),
    "worker-src 'self' blob:",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
}

/**
 * The headers helmet sets for `options`, found once by running its middleware on a recording
 * response: without a CSP (the site's own is below) they are the same for every response.
 * Lower-case names, as Fastify's reply keeps them.
 */
export function helmetHeaders(options: HelmetOptions): Record<string, string> {
  const headers: Record<string, string> = {};
  const recorder = {
    setHeader(name: string, value: string | number) {
      headers[name.toLowerCase()] = String(value);
    },
    removeHeader(name: string) {
      delete headers[name.toLowerCase()];
    },
  };
  helmet(options)({} as IncomingMessage, recorder as unknown as ServerResponse, (error?: unknown) => {
    if (error) throw error;
  });
  return headers;
}

/**
 * Every response's security headers (helmet's, and the site's CSP, which pages and tool answers
 * replace with their own) and its request id, set in one synchronous hook from headers computed
 * at start: helmet's own Fastify plugin built its middleware again on every request.
 */
export default fp(
  async function securityPlugin(app: FastifyInstance) {
    const headers = {
      ...helmetHeaders({ contentSecurityPolicy: false, crossOriginEmbedderPolicy: false, hsts: app.config.publicUrl.startsWith("https://") }),
      "content-security-policy": contentSecurityPolicy(),
    };
    app.addHook("onRequest", (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
      reply.headers(headers).header("x-request-id", request.id);
      done();
    });
  },
  { name: "security" },
);
