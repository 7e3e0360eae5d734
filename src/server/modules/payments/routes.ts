import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import {
  PAYMENT_MAX_AMOUNT,
  PAYMENT_MIN_AMOUNT,
  createPaymentBodySchema,
  createPaymentResponseSchema,
  paymentMethodsSchema,
} from "../../../shared/money-api";
import { AppError } from "../../errors";
import { configuredPaymentProviders } from "../../providers/payment/index";
import { PaymentSignatureError } from "../../providers/payment/types";
import { PaymentMismatchError, createPayment, settlePayment } from "./service";

/** Top-ups through payment providers: the methods on offer, creating an order, and the providers' notifications. */
const paymentRoutes: FastifyPluginAsyncZod = async (app) => {
  const providers = configuredPaymentProviders(app.config.money);
  const security = [{ bearer: [] }];

  // Providers notify with HTML-form bodies; this parser is scoped to these routes.
  app.addContentTypeParser("application/x-www-form-urlencoded", { parseAs: "string" }, (_request, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(body as string)));
  });

  app.get(
    "/console/payment-methods",
    {
      preHandler: app.requireUser,
      schema: { tags: ["charges"], summary: "The payment methods this site offers for top-ups", security, response: { 200: paymentMethodsSchema } },
    },
    async () => ({
      methods: [...providers.values()].map((p) => ({ id: p.id, channels: [...p.channels] })),
      minAmount: PAYMENT_MIN_AMOUNT,
      maxAmount: PAYMENT_MAX_AMOUNT,
    }),
  );

  app.post(
    "/console/payments",
    {
      preHandler: app.requireUser,
      schema: {
        tags: ["charges"],
        summary: "Start a top-up: an order with the provider, answered with its pay page or QR code",
        security,
        body: createPaymentBodySchema,
        response: { 200: createPaymentResponseSchema },
      },
    },
    async (request) => {
      const provider = providers.get(request.body.method);
      if (!provider) throw AppError.badRequest(`${request.body.method} is not available on this site`, "payment_method_unavailable");
      return createPayment(app.db, provider, {
        userId: request.auth!.userId,
        amount: request.body.amount,
        channel: request.body.channel,
        subject: `${app.config.siteName} balance top-up`,
        now: app.clock.now(),
      });
    },
  );

  app.post(
    "/payments/:provider/notify",
    {
      schema: {
        tags: ["payments"],
        summary: "Asynchronous payment notification from the provider (form-encoded, signed)",
        params: z.object({ provider: z.string() }),
        body: z.record(z.string(), z.string()),
      },
    },
    async (request, reply) => {
      const provider = providers.get(request.params.provider as never);
      if (!provider) throw AppError.notFound();
      reply.type("text/plain; charset=utf-8");
      try {
        const notification = provider.verifyNotification(request.body);
        const outcome = await settlePayment(app.db, provider, notification, {
          now: app.clock.now(),
          topUp: { referralBonusBasisPoints: app.config.money.referralBonusBasisPoints },
        });
        request.log.info({ provider: provider.id, outTradeNo: notification.outTradeNo, outcome }, "payment notification");
        return provider.acknowledgement.accepted;
      } catch (error) {
        if (error instanceof PaymentSignatureError || error instanceof PaymentMismatchError) {
          request.log.warn({ provider: provider.id, reason: error.message }, "payment notification refused");
          return reply.code(400).send(provider.acknowledgement.rejected);
        }
        throw error;
      }
    },
  );
};

export default paymentRoutes;
