import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import type { FastifyReply } from "fastify";
import { z } from "zod";
import {
  PAYMENT_MAX_AMOUNT,
  PAYMENT_MIN_AMOUNT,
  createPaymentBodySchema,
  createPaymentResponseSchema,
  paymentMethodsSchema,
  paymentStatusSchema,
} from "#shared/money-api";
import { AppError } from "../../errors";
import { noQuery } from "../../lib/no-query";
import { takeHourlyAllowance } from "../../lib/rate-limiter";
import { signedIn } from "../../lib/signed-in";
import { configuredPaymentProviders } from "../../providers/payment/index";
import { MalformedNotificationError, PaymentProviderError, PaymentSignatureError, type Acknowledgement } from "../../providers/payment/types";
import { countTopUp } from "../ledger/index";
import { PaymentMismatchError, createPayment, refreshPayment, settlePayment } from "./service";

/**
 * Each order is a request to the provider on the merchant's account, whose rate the provider caps
 * for the whole site: a user paying gets a few, a script no more.
 */
const ORDERS_PER_HOUR = 20;
/**
 * Checking a pending order is a query on the merchant's account at the provider: the console polls
 * an open order every 3 s (20 a minute), a script may not have the provider asked for every request.
 * Past this, per user and per process when Redis is down, the database answers until the window
 * frees; an order it holds as pending stays pending, though past its expiry, until the provider is asked.
 */
const PROVIDER_QUERIES_PER_MINUTE = 30;

const send = (reply: FastifyReply, ack: Acknowledgement) => reply.code(ack.status).type(ack.contentType).send(ack.body || undefined);

/** Top-ups through payment providers: the methods on offer, creating an order, its state, and the providers' notifications. */
const paymentRoutes: FastifyPluginAsyncZod = async (app) => {
  const providers = configuredPaymentProviders(app.config.money);
  const topUp = { referralBonusBasisPoints: app.config.money.referralBonusBasisPoints };
  const credited = (provider: string, amount: bigint, referralBonus: bigint | null) => countTopUp(app.metrics, provider, amount, referralBonus);

  /** Money may have arrived that was not credited: an error-level line the operator must act on. */
  const logMismatch = (log: typeof app.log, provider: string, error: PaymentMismatchError) =>
    error.needsOperator
      ? log.error({ provider, reason: error.message, operator: true }, "payment does not match its order: nothing credited, check it by hand")
      : log.warn({ provider, reason: error.message }, "payment notification refused");

  const consoleRoutes: FastifyPluginAsyncZod = async (signedInApi) => {
    signedInApi.get(
      "/console/payment-methods",
      {
        schema: { tags: ["credits"], summary: "The payment methods this site offers for top-ups", querystring: noQuery, response: { 200: paymentMethodsSchema } },
      },
      async () => ({
        methods: [...providers.values()].map((p) => ({ id: p.id, channels: [...p.channels] })),
        minAmount: PAYMENT_MIN_AMOUNT,
        maxAmount: PAYMENT_MAX_AMOUNT,
      }),
    );

    signedInApi.post(
      "/console/payments",
      {
        schema: {
          tags: ["credits"],
          summary: "Start a top-up: an order with the provider, answered with its pay page or QR code",
          body: createPaymentBodySchema,
          response: { 200: createPaymentResponseSchema },
        },
      },
      async (request) => {
        const provider = providers.get(request.body.method);
        if (!provider) throw AppError.badRequest(`${request.body.method} is not available on this site`, "payment_method_unavailable");
        const now = app.clock.now();
        const takeAllowance = () =>
          takeHourlyAllowance(app.rateLimiter, { key: `payment-orders:${request.user.userId}`, perHour: ORDERS_PER_HOUR, what: "top-up orders", nowMs: now.getTime() });
        return createPayment(app.db, provider, {
          takeAllowance,
          userId: request.user.userId,
          amount: request.body.amount,
          channel: request.body.channel,
          subject: `${app.config.siteName} balance top-up`,
          now,
        });
      },
    );

    signedInApi.get(
      "/console/payments/:orderId",
      {
        schema: {
          tags: ["credits"],
          summary: "The state of one of your top-up orders; a pending order is checked with the provider first",
          params: z.object({ orderId: z.string().regex(/^TG\d{22}$/, "orderId must be an order number such as TG2026030108000012345678") }),
          querystring: noQuery,
          response: { 200: paymentStatusSchema },
        },
      },
      async (request) => {
        const { orderId } = request.params;
        const { userId } = request.user;
        const now = app.clock.now();
        const input = { userId, outTradeNo: orderId, now, topUp, credited };
        const mayAskProvider = async () =>
          (await app.rateLimiter.hit(
            { key: `payment-queries:${userId}`, limit: PROVIDER_QUERIES_PER_MINUTE, windowMs: 60_000, whenRedisDown: "local" },
            now.getTime(),
          )) === 0;
        try {
          const { status } = await refreshPayment(app.db, (id) => providers.get(id as never), { ...input, mayAskProvider });
          return { orderId, status };
        } catch (error) {
          if (error instanceof PaymentMismatchError) logMismatch(request.log, "query", error);
          else if (error instanceof PaymentProviderError) request.log.warn({ reason: error.message }, "payment query failed");
          else throw error;
          // The provider could not settle the doubt now: what the database says stands.
          return { orderId, status: (await refreshPayment(app.db, () => undefined, input)).status };
        }
      },
    );
  };
  await app.register(signedIn(consoleRoutes));

  // Notifications are verified over their exact bytes, so this child context reads every body as text.
  const notifyRoutes: FastifyPluginAsyncZod = async (notify) => {
    notify.removeAllContentTypeParsers();
    notify.addContentTypeParser("*", { parseAs: "string" }, (_request, body, done) => done(null, body));

    notify.post(
      "/payments/:provider/notify",
      {
        schema: {
          tags: ["payments"],
          summary: "Asynchronous payment notification from the provider (signed; Alipay posts a form, WeChat Pay encrypted JSON)",
          params: z.object({ provider: z.string() }),
        },
      },
      async (request, reply) => {
        const provider = providers.get(request.params.provider as never);
        if (!provider) throw AppError.notFound();
        const now = app.clock.now();
        const notified = (result: string) => app.metrics.count("paymentNotifications", { provider: provider.id, result });
        try {
          let facts = provider.verifyNotification({ headers: request.headers, body: typeof request.body === "string" ? request.body : "" }, now);
          // A genuine notification that does not say "paid" leaves doubt: the provider's own answer decides.
          if (!facts.paid && provider.queryOrder) facts = (await provider.queryOrder(facts.outTradeNo, now)) ?? facts;
          const outcome = await settlePayment(app.db, provider, facts, { now, topUp, credited });
          request.log.info({ provider: provider.id, outTradeNo: facts.outTradeNo, outcome }, "payment notification");
          notified(outcome === "already_credited" ? "duplicate" : outcome);
          return send(reply, provider.acknowledgement.accepted);
        } catch (error) {
          if (error instanceof PaymentSignatureError) {
            request.log.warn({ provider: provider.id, reason: error.message }, "payment notification refused");
            notified("forged");
          } else if (error instanceof PaymentMismatchError) {
            logMismatch(request.log, provider.id, error);
            notified("mismatched");
          } else if (error instanceof MalformedNotificationError) {
            request.log.error({ provider: provider.id, reason: error.message, operator: true }, "payment notification is signed but malformed: nothing credited, check it by hand");
            notified("malformed");
          } else if (error instanceof PaymentProviderError) {
            request.log.warn({ provider: provider.id, reason: error.message }, "payment query failed");
            notified("query_failed");
          } else throw error;
          return send(reply, provider.acknowledgement.rejected);
        }
      },
    );
  };
  await app.register(notifyRoutes);
};

export default paymentRoutes;
