import type { FastifyBaseLogger } from "fastify";

/** One verification code to deliver by SMS. */
export interface VerificationSms {
  /** 11-digit mainland mobile number. */
  phone: string;
  code: string;
  ttlMinutes: number;
  now: Date;
  /** The request's logger, so a provider's log line carries the request id. */
  log: FastifyBaseLogger;
}

/** A low-balance alert to deliver by SMS (issue 21 §2), with the provider's approved alert template. */
export interface LowBalanceSms {
  phone: string;
  /** Decimal strings, as the console shows them. */
  balance: string;
  threshold: string;
  /** The approved template's id for Aliyun or Tencent; the console provider writes its own text. */
  template: string | null;
  now: Date;
  log: FastifyBaseLogger;
}

/** A reminder that a lot of prepaid units with units left expires soon (issue 37 §5). */
export interface LotExpirySms {
  phone: string;
  /** The package's name as bought, the tool's name, the units left (`5 calls`), and when it expires (`2026-12-31 14:00 +08:00`). */
  packageName: string;
  toolName: string;
  unitsLeft: string;
  expiresAt: string;
  template: string | null;
  now: Date;
  log: FastifyBaseLogger;
}

/** The provider refused the message (its answer is in `message`, never the code). */
export class SmsSendError extends Error {
  constructor(
    readonly provider: string,
    readonly providerCode: string,
    message: string,
  ) {
    super(`${provider} refused the SMS: ${providerCode} ${message}`);
    this.name = "SmsSendError";
  }
}

export interface SmsProvider {
  readonly name: "console" | "aliyun" | "tencent";
  /** Resolves once the provider accepted the message; throws SmsSendError or ProviderFailure otherwise. */
  sendVerificationCode(sms: VerificationSms): Promise<void>;
  /** The same contract, for a low-balance alert; Aliyun's template takes `${balance}` and `${threshold}`, Tencent's {1} and {2}. */
  sendLowBalanceAlert(sms: LowBalanceSms): Promise<void>;
  /** The same, for a lot's expiry reminder; Aliyun's template takes `${package}`, `${tool}`, `${units}` and `${expires}`, Tencent's {1} to {4}. */
  sendLotExpiryReminder(sms: LotExpirySms): Promise<void>;
}
