import { eq } from "drizzle-orm";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { codeRequestSchema, codeResponseSchema, loginRequestSchema, loginResponseSchema, logoutResponseSchema } from "#shared/auth";
import { captchaSettingsSchema } from "#shared/captcha";
import { users } from "../../db/schema/index";
import { createCaptchaProvider, isAltcha } from "../../providers/captcha/index";
import { answerWithSecret, SECRET_REPLAY_TTL_MS } from "../../plugins/idempotency";
import { createSmsProvider } from "../../providers/sms/index";
import { recordAuthEvent } from "./audit";
import { login } from "./login";
import { requestCode } from "./request-code";
import { revokeAllSessions, revokeSession, rotateSessionToken } from "./sessions";
import { scheduleAuthSweep } from "./sweep";
import { signedIn } from "../../plugins/auth";

const errorSchema = z.object({ code: z.string(), message: z.string() });

const altchaChallengeSchema = z.object({
  parameters: z.record(z.string(), z.unknown()),
  signature: z.string(),
});

const authRoutes: FastifyPluginAsyncZod = async (app) => {
  const { auth, dataDir, siteName, sessionSecret } = app.config;
  const providers = {
    sms: createSmsProvider(auth.sms, { dataDir, siteName }),
    captcha: createCaptchaProvider(auth.captcha, sessionSecret),
  };
  scheduleAuthSweep(app);
  app.secretReissuers.set("session", async (sessionId, now) => {
    const token = await rotateSessionToken(app.db, sessionId, now);
    return token === null ? null : { csrf_token: token };
  });
  const phoneOf = async (userId: number) => (await app.db.select({ phone: users.phone }).from(users).where(eq(users.id, userId)))[0]?.phone;

  app.get(
    "/auth/captcha",
    { schema: { tags: ["auth"], summary: "The captcha the browser runs before requesting a code", response: { 200: captchaSettingsSchema } } },
    async (_request, reply) => {
      reply.header("cache-control", "no-store");
      return providers.captcha.settings();
    },
  );

  const { captcha } = providers;
  if (isAltcha(captcha)) {
    app.get(
      "/auth/captcha/altcha/challenge",
      { schema: { tags: ["auth"], summary: "A fresh proof-of-work challenge for the altcha widget", response: { 200: altchaChallengeSchema } } },
      async (_request, reply) => {
        reply.header("cache-control", "no-store");
        const challenge = await captcha.createChallenge(app.clock.now());
        return { parameters: { ...challenge.parameters }, signature: challenge.signature ?? "" };
      },
    );
  }

  app.post(
    "/auth/phone/verification_code",
    {
      schema: {
        tags: ["auth"],
        summary: "Send a login code to a phone",
        body: codeRequestSchema,
        response: { 200: codeResponseSchema, 400: errorSchema, 429: errorSchema, 502: errorSchema, 503: errorSchema },
      },
    },
    async (request, reply) => requestCode(app, providers, request, reply, request.body),
  );

  app.post(
    "/auth/phone/login",
    {
      config: { idempotencyTtlMs: SECRET_REPLAY_TTL_MS },
      schema: {
        tags: ["auth"],
        summary: "Log in or sign up with a phone and its code",
        body: loginRequestSchema,
        response: { 200: loginResponseSchema, 400: errorSchema, 429: errorSchema },
      },
    },
    async (request, reply) => {
      const { sessionId, token } = await login(app, request, request.body);
      answerWithSecret(request, reply, { kind: "session", ref: sessionId, fields: ["csrf_token"] });
      return { csrf_token: token };
    },
  );

  const sessionRoutes: FastifyPluginAsyncZod = async (signedInApi) => {
    signedInApi.post(
      "/auth/logout",
      {
        schema: { tags: ["auth"], summary: "End this session", security: [{ bearer: [] }], response: { 200: logoutResponseSchema } },
      },
      async (request) => {
        const { sessionId, userId } = request.user;
        const now = app.clock.now();
        await revokeSession(app.db, sessionId, now);
        await recordAuthEvent(app.db, request, { type: "logout", at: now, userId, phone: await phoneOf(userId) });
        return { ok: true as const };
      },
    );

    signedInApi.post(
      "/auth/logout-all",
      {
        schema: { tags: ["auth"], summary: "End every session of this user", security: [{ bearer: [] }], response: { 200: logoutResponseSchema } },
      },
      async (request) => {
        const { userId } = request.user;
        const now = app.clock.now();
        const ended = await revokeAllSessions(app.db, userId, now);
        await recordAuthEvent(app.db, request, { type: "logout_all", at: now, userId, phone: await phoneOf(userId), reason: `${ended} sessions` });
        return { ok: true as const };
      },
    );
  };
  await app.register(signedIn(sessionRoutes));
};

export default authRoutes;
