import type { PaymentChannel, PaymentProviderId } from "#shared/money-api";

export interface PaymentOrderRequest {
  /** Our order number; the provider echoes it in its notification. */
  outTradeNo: string;
  /** Micro-units, a whole number of cents. */
  amount: bigint;
  subject: string;
  channel: PaymentChannel;
  expiresAt: Date;
  now: Date;
}

/** Where the user pays: a page to open, or the content of a QR code to scan. */
export interface PaymentStart {
  payUrl: string | null;
  qrCode: string | null;
}

/** What the provider says about an order, from a notification or an answer whose signature checked out. */
export interface PaymentNotification {
  outTradeNo: string;
  /** The provider's own transaction number; empty while the provider has none (unpaid). */
  providerTradeNo: string;
  amount: bigint;
  /** ISO 4217; every order here is in CNY. */
  currency: string;
  /** False for other states (waiting, closed): nothing to credit. */
  paid: boolean;
}

/** A notification as it arrived: its headers and its body exactly as received (signatures cover the raw text). */
export interface IncomingNotification {
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** An answer to a notification, as the provider expects it. */
export interface Acknowledgement {
  status: number;
  contentType: string;
  body: string;
}

export class PaymentSignatureError extends Error {
  constructor(message = "the notification's signature does not verify") {
    super(message);
    this.name = "PaymentSignatureError";
  }
}

/**
 * A notification with the provider's valid signature that cannot be applied: a field is missing
 * or malformed. Money may have arrived, so nothing is credited and the operator must look.
 */
export class MalformedNotificationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "MalformedNotificationError";
  }
}

export class PaymentProviderError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "PaymentProviderError";
  }
}

/**
 * One payment provider: create an order (→ pay page or QR code), then verify the signed
 * notification that says it was paid. Crediting, exactly once, is the caller's job
 * (src/server/modules/payments/service.ts).
 */
export interface PaymentProvider {
  readonly id: PaymentProviderId;
  readonly channels: readonly PaymentChannel[];
  start(order: PaymentOrderRequest): Promise<PaymentStart>;
  /** Throws PaymentSignatureError unless the notification carries the provider's valid (and, where the provider dates it, fresh) signature. */
  verifyNotification(notification: IncomingNotification, now: Date): PaymentNotification;
  /**
   * Asks the provider for the order's state (signed answer checked), for when the user comes back
   * or a notification leaves doubt; null when the provider does not know the order. Providers
   * without such a call leave it out.
   */
  queryOrder?(outTradeNo: string, now: Date): Promise<PaymentNotification | null>;
  /** The answers the provider expects to a notification. */
  readonly acknowledgement: { accepted: Acknowledgement; rejected: Acknowledgement };
}
