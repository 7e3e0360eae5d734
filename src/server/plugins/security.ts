import type { FastifyInstance } from "fastify";
import fp from "fastify-plugin";
import helmet from "@fastify/helmet";
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

export default fp(
  async function securityPlugin(app: FastifyInstance) {
    await app.register(helmet, {
      contentSecurityPolicy: false,
      crossOriginEmbedderPolicy: false,
      hsts: app.config.publicUrl.startsWith("https://"),
    });
    const policy = contentSecurityPolicy();
    app.addHook("onRequest", async (_request, reply) => {
      reply.header("content-security-policy", policy);
    });
  },
  { name: "security" },
);
