import type { FastifyInstance } from "fastify";
import fp from "fastify-plugin";
import helmet from "@fastify/helmet";

/** The CSP for everything the server sends; HTML pages add hashes of their own inline scripts to it. */
export function contentSecurityPolicy(scriptHashes: readonly string[] = [], extraConnect: readonly string[] = []): string {
  const scripts = ["'self'", ...scriptHashes.map((h) => `'${h}'`)];
  return [
    "default-src 'self'",
    `script-src ${scripts.join(" ")}`,
    // antd writes its CSS-in-JS into <style> elements at run time.
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    `connect-src 'self' ${extraConnect.join(" ")}`.trim(),
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
