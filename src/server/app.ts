import Fastify, { type FastifyInstance, type FastifyPluginAsync } from "fastify";
import cookie from "@fastify/cookie";
import { jsonSchemaTransform, serializerCompiler, validatorCompiler, type ZodTypeProvider } from "fastify-type-provider-zod";
import { systemClock, type Clock } from "./clock";
import type { AppConfig } from "./config";
import { openDatabase, type Database } from "./db/client";
import { loggerOptions, requestLogger } from "./logger";
import { ERROR_CODES } from "#shared/errors";
import { AppError } from "./errors";
import { requestId } from "./lib/request-id";
import { signedIn } from "./lib/signed-in";
import { answerUnknownPaths } from "./lib/unknown-paths";
import { serverAnswersAt } from "./cli/control-socket";
import { DatabaseOpeningError } from "./lib/database-url";
import { DataDirInUseError } from "./lib/private-data-dir";
import configPlugin from "./plugins/config";
import dbPlugin from "./plugins/db";
import rateLimiterPlugin from "./plugins/rate-limiter";
import errorsPlugin, { clientErrorHandler, consoleApiNotFound, consoleNotFound, frameworkErrors } from "./plugins/errors";
import idempotencyPlugin, { consoleIdempotency } from "./plugins/idempotency";
import instanceLeasePlugin from "./plugins/instance-lease";
import bodyBudgetPlugin, { createBodyBudget } from "./plugins/body-budget";
import schedulerPlugin from "./plugins/scheduler";
import lifecyclePlugin from "./plugins/lifecycle";
import metricsPlugin from "./plugins/metrics";
import securityPlugin from "./plugins/security";
import webPlugin from "./plugins/web";
import { renderSitePages } from "./modules/site-pages";
import sessionHook from "./modules/auth/session-hook";
import { loginClientOf } from "./modules/auth/login-cookie";
import catalogPlugin from "./modules/catalog/plugin";
import { GatewayError } from "./modules/gateway/gateway-error";
import healthRoutes from "./modules/health/routes";
import catalogRoutes from "./modules/catalog/routes";
import gatewayRoutes from "./modules/gateway/routes";
import billingRoutes from "./modules/billing/routes";
import creditsRoutes from "./modules/credits/routes";
import redemptionRoutes from "./modules/redemption/routes";
import paymentRoutes from "./modules/payments/routes";
import keyRoutes from "./modules/keys/routes";
import accountRoutes from "./modules/account/routes";
import authRoutes from "./modules/auth/routes";
import applicationRoutes from "./modules/applications/routes";
import alertRoutes from "./modules/alerts/routes";
import plansRoutes from "./modules/plans/routes";
import { createAlertsJob } from "./modules/alerts/job";
import { reportMoneyHealthPeriodically } from "./modules/ledger/index";
import { callLogPlugin, callsRoutes } from "./modules/calls/index";
import { consoleTriesPlugin } from "./modules/gateway/index";
import { tryRoutes } from "./modules/tries/index";

export interface AppDeps {
  /** An open, migrated database; when absent the app opens one from the config and closes it with itself. */
  database?: Database;
  clock?: Clock;
  /** Pino destination stream, for tests that read the log. */
  logStream?: NodeJS.WritableStream;
  /** More API routes under /api/v1, registered like the app's own (tests use it for fixtures). */
  extraApiRoutes?: FastifyPluginAsync[];
  /** Describes the console API as OpenAPI (`app.swagger()`), for the docs build; a serving process does not. */
  describeApi?: boolean;
}

export async function buildApp(config: AppConfig, deps: AppDeps = {}): Promise<FastifyInstance> {
  const app = Fastify({
    logger: loggerOptions(config, deps.logStream),
    trustProxy: config.trustProxy,
    genReqId: () => requestId(),
    childLoggerFactory: requestLogger,
    requestIdHeader: false,
    bodyLimit: 1024 * 1024,
    // A request's headers and body must arrive within this; a dripped body gets 408 and is closed.
    requestTimeout: config.requestTimeoutMs,
    // Node checks those deadlines on this interval (default 30 s); headers get no longer than the whole request.
    http: { headersTimeout: Math.min(60_000, config.requestTimeoutMs), connectionsCheckingInterval: 1000 },
    frameworkErrors,
    clientErrorHandler,
  }).withTypeProvider<ZodTypeProvider>();
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);

  let database = deps.database;
  if (!database) {
    // Before the embedded database is opened: another server may hold it (and its admin socket).
    if (!config.databaseUrl && (await serverAnswersAt(config.dataDir))) throw new DataDirInUseError(config.dataDir);
    database = openDatabase(config, app.log);
    const owned = database;
    await database.migrate().catch(async (error: unknown) => {
      await owned.close().catch((closeError: unknown) => app.log.warn({ err: closeError }, "could not close the database after a failed migration"));
      throw new DatabaseOpeningError(config, error);
    });
    app.addHook("onClose", async () => owned.close());
  }

  // Hooks and decorations every request and route family share: its id, the security headers, metrics.
  await app.register(configPlugin, { config, clock: deps.clock ?? systemClock });
  await app.register(dbPlugin, { database });
  await app.register(lifecyclePlugin);
  await app.register(schedulerPlugin);
  await app.register(errorsPlugin);
  await app.register(catalogPlugin);
  await app.register(metricsPlugin);
  await app.register(securityPlugin);
  await app.register(instanceLeasePlugin);
  await app.register(idempotencyPlugin);
  await app.register(rateLimiterPlugin);
  await app.register(callLogPlugin);
  await app.register(consoleTriesPlugin);
  app.decorate("alertsJob", createAlertsJob(app));
  reportMoneyHealthPeriodically(app);
  if (deps.describeApi) {
    const { default: swagger } = await import("@fastify/swagger");
    await app.register(swagger, {
      openapi: {
        info: { title: `${config.siteName} console API`, version: "1" },
        components: { securitySchemes: { bearer: { type: "http", scheme: "bearer" } } },
      },
      transform: jsonSchemaTransform,
    });
  }

  // One budget for the memory of all request bodies; each route family refuses past it in its own shape.
  const bodies = createBodyBudget(config.bodyMemoryBytes);
  app.metrics.watchBodiesHeld(() => bodies.held);
  const retryShortly = { "retry-after": "1" };
  const consoleBusy = () => new AppError(503, ERROR_CODES.unavailable, "the server is receiving too many request bodies at once: retry shortly", retryShortly);

  // The console API: every path under /api/, its routes under /api/v1. Its hooks: the body budget,
  // the caller's session, Idempotency-Keys; errors in the app's {code, message} shape (errorsPlugin).
  await app.register(
    async (consoleApi) => {
      await consoleApi.register(bodyBudgetPlugin, { budget: bodies, busy: consoleBusy });
      await consoleApi.register(cookie);
      await consoleApi.register(sessionHook);
      await consoleApi.register(consoleIdempotency, { browserOf: (request) => loginClientOf(config.sessionSecret, request) });
      answerUnknownPaths(consoleApi, consoleApiNotFound);
      await consoleApi.register(
        async (api) => {
          await api.register(healthRoutes);
          await api.register(catalogRoutes);
          await api.register(authRoutes);
          await api.register(paymentRoutes);
          await api.register(
            signedIn(async (signedInApi) => {
              await signedInApi.register(creditsRoutes);
              await signedInApi.register(redemptionRoutes);
              await signedInApi.register(keyRoutes);
              await signedInApi.register(applicationRoutes);
              await signedInApi.register(accountRoutes);
              await signedInApi.register(billingRoutes);
              await signedInApi.register(callsRoutes);
              await signedInApi.register(alertRoutes);
              await signedInApi.register(plansRoutes);
              await signedInApi.register(tryRoutes);
            }),
          );
          for (const routes of deps.extraApiRoutes ?? []) await api.register(routes);
        },
        { prefix: "/v1" },
      );
    },
    { prefix: "/api" },
  );

  // The gateway: /v1. Its hooks: the body budget; the gateway's own errors and unknown routes (modules/gateway/error-handler.ts).
  await app.register(
    async (gatewayApi) => {
      await gatewayApi.register(bodyBudgetPlugin, { budget: bodies, busy: () => new GatewayError("server_busy", undefined, retryShortly) });
      // Each gateway call is recorded as a usage row, so its access log lines would only repeat it.
      await gatewayApi.register(gatewayRoutes, { logLevel: "warn" });
    },
    { prefix: "/v1" },
  );

  // The site: the built web app's pages and files, and every other path (404 in the console's shape).
  await app.register(async (site) => {
    await site.register(bodyBudgetPlugin, { budget: bodies, busy: consoleBusy });
    site.setNotFoundHandler(consoleNotFound);
    await site.register(webPlugin, { webRoot: config.webRoot, renderPages: (read) => renderSitePages(app, config.webRoot, read) });
  });
  return app;
}
