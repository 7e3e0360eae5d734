import { randomInt } from "node:crypto";
import { and, eq, ne } from "drizzle-orm";
import { formatMoney, parseMoney } from "#shared/money";
import type { CreatePaymentResponse, PaymentChannel } from "#shared/money-api";
import type { Db } from "../../db/client";
import { paymentOrders } from "../../db/schema/index";
import { AppError } from "../../errors";
import { PaymentProviderError, type PaymentNotification, type PaymentProvider } from "../../providers/payment/types";
import { recordTopUp, type TopUpOptions } from "../ledger/index";

export const PAYMENT_ORDER_TTL_MS = 30 * 60 * 1000;

/** `TG` + UTC time to the second + 8 random digits: unique enough, and readable on a bank statement. */
function newOutTradeNo(now: Date): string {
  return `TG${now.toISOString().replace(/\D/g, "").slice(0, 14)}${String(randomInt(0, 100_000_000)).padStart(8, "0")}`;
}

/**
 * Records the order, then asks the provider where to pay, outside any transaction: a slow
 * provider holds no connection and, on PGlite, no other statement. If the provider refuses or
 * cannot be reached, the order is removed again, so a refused order leaves no row.
 * `takeAllowance` counts the order against the user's hourly limit once its input is accepted, as
 * the provider is asked: a request refused for its input uses none of the hour's.
 */
export async function createPayment(
  db: Db,
  provider: PaymentProvider,
  input: { userId: number; amount: string; channel: PaymentChannel; subject: string; now: Date; takeAllowance: () => Promise<void> },
): Promise<CreatePaymentResponse> {
  if (!provider.channels.includes(input.channel)) throw AppError.badRequest(`${provider.id} does not offer the ${input.channel} channel`);
  await input.takeAllowance();
  const amount = parseMoney(input.amount);
  const expiresAt = new Date(input.now.getTime() + PAYMENT_ORDER_TTL_MS);
  const outTradeNo = newOutTradeNo(input.now);
  await db.insert(paymentOrders).values({ userId: input.userId, provider: provider.id, outTradeNo, amount, createdAt: input.now, expiresAt });
  let start;
  try {
    start = await provider.start({ outTradeNo, amount, subject: input.subject, channel: input.channel, expiresAt, now: input.now });
  } catch (error) {
    // Only a pending order goes: one that a notification managed to settle meanwhile stays.
    await db.delete(paymentOrders).where(and(eq(paymentOrders.outTradeNo, outTradeNo), eq(paymentOrders.status, "pending")));
    if (error instanceof PaymentProviderError) {
      throw new AppError(502, "payment_provider_failed", "the payment provider is not available right now, please try again later");
    }
    throw error;
  }
  return { orderId: outTradeNo, amount: formatMoney(amount), expiresAt: expiresAt.toISOString(), payUrl: start.payUrl, qrCode: start.qrCode };
}

/** A top-up credited through a provider, and the referral bonus it paid (null: none). */
export type Credited = (provider: string, amount: bigint, referralBonus: bigint | null) => void;

export type SettleOutcome = "credited" | "already_credited" | "not_paid";

/** The provider's facts do not match the order: nothing is credited and the operator must look. */
export class PaymentMismatchError extends Error {
  constructor(
    message: string,
    /** True when money may have arrived that we did not credit (a paid order whose amount or currency differs). */
    readonly needsOperator = false,
  ) {
    super(message);
    this.name = "PaymentMismatchError";
  }
}

/**
 * Applies a verified notification: the order flips to paid in one conditional UPDATE and the
 * top-up is credited in the same transaction under the key `payment:<provider>:<order>`, so a
 * replayed notification finds the order paid and credits nothing. A paid notification for an
 * order that had timed out still credits: the user's money did arrive.
 */
export async function settlePayment(
  db: Db,
  provider: PaymentProvider,
  notification: PaymentNotification,
  input: { now: Date; topUp: TopUpOptions; /** Told each top-up this credits, and the referral bonus it paid, once committed (the metrics). */ credited?: Credited },
): Promise<SettleOutcome> {
  if (!notification.paid) return "not_paid";
  let referralBonus: bigint | null = null;
  const outcome = await db.transaction(async (tx): Promise<SettleOutcome> => {
    const order = and(eq(paymentOrders.provider, provider.id), eq(paymentOrders.outTradeNo, notification.outTradeNo));
    const [existing] = await tx.select().from(paymentOrders).where(order);
    // Only paid facts get here, so money arrived for an order we do not have: the operator must look.
    if (!existing) throw new PaymentMismatchError(`no ${provider.id} order ${notification.outTradeNo}`, true);
    if (existing.amount !== notification.amount || notification.currency !== "CNY") {
      throw new PaymentMismatchError(
        `${provider.id} order ${notification.outTradeNo} is for ${formatMoney(existing.amount)} CNY, the provider says ${formatMoney(notification.amount)} ${notification.currency}`,
        true,
      );
    }
    const [paid] = await tx
      .update(paymentOrders)
      .set({ status: "paid", paidAt: input.now, providerTradeNo: notification.providerTradeNo })
      .where(and(order, ne(paymentOrders.status, "paid")))
      .returning();
    if (!paid) return "already_credited";
    const recorded = await recordTopUp(
      tx,
      {
        userId: paid.userId,
        amount: paid.amount,
        kind: "topup",
        method: provider.id,
        reference: paid.outTradeNo,
        idempotencyKey: `payment:${provider.id}:${paid.outTradeNo}`,
        at: input.now,
      },
      input.topUp,
    );
    referralBonus = recorded.referralBonus?.amount ?? null;
    return "credited";
  });
  if (outcome === "credited") input.credited?.(provider.id, notification.amount, referralBonus);
  return outcome;
}

export type OrderStatus = "paid" | "pending" | "closed";

/**
 * The state of one of the user's orders. A pending order is first checked with the provider
 * (when it can be asked), and credited if the provider says it was paid: the user who comes back
 * from paying sees the money even if the notification is late or lost.
 */
export async function refreshPayment(
  db: Db,
  providerFor: (id: string) => PaymentProvider | undefined,
  input: {
    userId: number;
    outTradeNo: string;
    now: Date;
    topUp: TopUpOptions;
    credited?: Credited;
    /** Asked just before the provider would be: false answers from the database (the caller's allowance is spent). */
    mayAskProvider?: () => Promise<boolean>;
  },
): Promise<{ status: OrderStatus; outcome?: SettleOutcome }> {
  const [order] = await db
    .select()
    .from(paymentOrders)
    .where(and(eq(paymentOrders.userId, input.userId), eq(paymentOrders.outTradeNo, input.outTradeNo)));
  if (!order) throw AppError.notFound("no such payment order");
  const stored = (): OrderStatus => (order.status === "paid" ? "paid" : order.expiresAt > input.now && order.status === "pending" ? "pending" : "closed");
  const provider = providerFor(order.provider);
  if (order.status === "paid" || !provider?.queryOrder) return { status: stored() };
  // Not asked, an order past its expiry may still have been paid: it stays pending until the provider says.
  if (input.mayAskProvider && !(await input.mayAskProvider())) return { status: order.status === "pending" ? "pending" : stored() };
  const facts = await provider.queryOrder(order.outTradeNo, input.now);
  if (!facts?.paid) return { status: stored() };
  const outcome = await settlePayment(db, provider, facts, input);
  return { status: "paid", outcome };
}
