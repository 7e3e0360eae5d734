import type { PaymentChannel, PaymentProviderId } from "../../../shared/money-api";

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

/** A notification whose signature checked out. */
export interface PaymentNotification {
  outTradeNo: string;
  providerTradeNo: string;
  amount: bigint;
  /** False for notifications about other states (waiting, closed): nothing to credit. */
  paid: boolean;
}

export class PaymentSignatureError extends Error {
  constructor(message = "the notification's signature does not verify") {
    super(message);
    this.name = "PaymentSignatureError";
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
  /** Throws PaymentSignatureError unless the fields carry the provider's valid signature. */
  verifyNotification(fields: Record<string, string>): PaymentNotification;
  /** The bodies the provider expects in answer to a notification. */
  readonly acknowledgement: { accepted: string; rejected: string };
}
