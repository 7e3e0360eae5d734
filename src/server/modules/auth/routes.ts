import type { FastifyRequest } from "fastify";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { codeRequestSchema, codeResponseSchema, loginRequestSchema, loginResponseSchema, logoutResponseSchema } from "#shared/auth";
import { captchaSettingsSchema } from "#shared/captcha";
import { ERROR_CODES } from "#shared/errors";
import { createCaptchaProvider, isAltcha } from "../../providers/captcha/index";
import { answerWithSecret, SECRET_REPLAY_TTL_MS } from "../../lib/secret-answers";
import { createSmsProvider } from "../../providers/sms/index";
import { AppError } from "../../errors";
import type { RequestOrigin } from "./audit";
import { requestPhone } from "./codes";
import { ensureLoginClient, loginClientOf } from "./login-cookie";
import { login } from "./login";
import { logout, logoutEverywhere } from "./logout";
import { requestCode } from "./request-code";
import { rotateSessionToken } from "./sessions";
import { scheduleAuthSweep } from "./sweep";
import { signedIn } from "../../lib/signed-in";
import { noQuery } from "../../lib/no-query";

const errorSchema = z.object({ code: z.string(), message: z.string() });

const altchaChallengeSchema = z.object({
  parameters: z.record(z.string(), z.unknown()),
  signature: z.string(),
});

/** Where a request came from, for the sign-in audit trail. */
function originOf(request: FastifyRequest): RequestOrigin {
  return { ip: request.ip, userAgent: request.headers["user-agent"], requestId: request.id };
}

/** What a refused code request or login counts as in the metrics: its error code; the per-IP limit's is `ip_limited`. */
function refusalOf(error: unknown): string {
  if (!(error instanceof AppError)) return "other";
  return error.code === ERROR_CODES.rateLimited ? "ip_limited" : error.code;
}

const authRoutes: FastifyPluginAsyncZod = async (app) => {
  const { auth, dataDir, siteName, sessionSecret, publicUrl } = app.config;
  const secureCookie = publicUrl.startsWith("https:");
  const providers = {
    sms: createSmsProvider(auth.sms, { dataDir, siteName }),
    captcha: createCaptchaProvider(auth.captcha, sessionSecret, app.log),
  };
  scheduleAuthSweep(app);
  app.secretReissuers.set("session", async (sessionId, now) => {
    const token = await rotateSessionToken(app.db, sessionId, now);
    return token === null ? null : { csrf_token: token };
  });

  app.get(
    "/auth/captcha",
    { schema: { tags: ["auth"], summary: "The captcha the browser runs before requesting a code", querystring: noQuery, response: { 200: captchaSettingsSchema } } },
    async (request, reply) => {
      reply.header("cache-control", "no-store");
      ensureLoginClient(sessionSecret, request, reply, secureCookie);
      return providers.captcha.settings();
    },
  );

  const { captcha } = providers;
  if (isAltcha(captcha)) {
    app.get(
      "/auth/captcha/altcha/challenge",
      { schema: { tags: ["auth"], summary: "A fresh proof-of-work challenge for the altcha widget", querystring: noQuery, response: { 200: altchaChallengeSchema } } },
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
    async (request, reply) => {
      // A number that is not a phone is refused before the browser is given a login cookie.
      const { phone, target } = requestPhone(sessionSecret, request.body.telephone);
      const client = ensureLoginClient(sessionSecret, request, reply, secureCookie);
      const counted = (result: string) => app.metrics.count("verificationCodes", { result });
      const answer = await requestCode(app.db, providers, {
        phone,
        target,
        captchaResult: request.body.captchaResult,
        client,
        origin: originOf(request),
        now: app.clock.now(),
        secret: sessionSecret,
        limits: auth.limits,
        log: request.log,
      }).catch((error: unknown) => {
        counted(refusalOf(error));
        throw error;
      });
      counted(answer.status === "success" ? "sent" : (answer.reason ?? "other"));
      return answer;
    },
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
      const { phone, target } = requestPhone(sessionSecret, request.body.telephone);
      const { sessionId, token } = await login(app.db, {
        phone,
        target,
        code: request.body.code,
        recommendCode: request.body.recommendCode,
        client: loginClientOf(sessionSecret, request),
        origin: originOf(request),
        now: app.clock.now(),
        secret: sessionSecret,
        limits: auth.limits,
      }).catch((error: unknown) => {
        app.metrics.count("logins", { result: refusalOf(error) });
        throw error;
      });
      app.metrics.count("logins", { result: "succeeded" });
      answerWithSecret(request, reply, { kind: "session", ref: sessionId, fields: ["csrf_token"] });
      return { csrf_token: token };
    },
  );

  const sessionRoutes: FastifyPluginAsyncZod = async (signedInApi) => {
    signedInApi.post(
      "/auth/logout",
      {
        schema: { tags: ["auth"], summary: "End this session", response: { 200: logoutResponseSchema } },
      },
      async (request) => {
        await logout(app.db, { session: request.user, origin: originOf(request), now: app.clock.now() });
        return { ok: true as const };
      },
    );

    signedInApi.post(
      "/auth/logout-all",
      {
        schema: { tags: ["auth"], summary: "End every session of this user", response: { 200: logoutResponseSchema } },
      },
      async (request) => {
        await logoutEverywhere(app.db, { userId: request.user.userId, origin: originOf(request), now: app.clock.now() });
        return { ok: true as const };
      },
    );
  };
  await app.register(signedIn(sessionRoutes));
};

export default authRoutes;
