import type { KeyObject } from "node:crypto";

/** Alipay's settings, present when every ALIPAY_* credential is set and readable. */
export interface AlipayConfig {
  appId: string;
  /** The app's RSA private key: signs every request (RSA2). */
  privateKey: KeyObject;
  /** Alipay's RSA public key: verifies notifications and responses. */
  alipayPublicKey: KeyObject;
  gateway: string;
  notifyUrl: string;
  returnUrl: string;
}

/** WeChat Pay's settings, present when every WECHATPAY_* credential is set and readable. */
export interface WechatPayConfig {
  mchId: string;
  appId: string;
  /** The merchant's API private key (apiclient_key.pem): signs every request. */
  privateKey: KeyObject;
  /** Serial number of the merchant API certificate, named in every request's Authorization. */
  certificateSerial: string;
  /** WeChat Pay's public key and its id: verify every answer and notification. */
  platformPublicKey: KeyObject;
  platformPublicKeyId: string;
  /** The APIv3 key, 32 bytes: decrypts notifications. */
  apiV3Key: Buffer;
  baseUrl: string;
  notifyUrl: string;
}

/** The payment providers whose credentials are configured. */
export interface PaymentProvidersConfig {
  alipay?: AlipayConfig;
  wechat?: WechatPayConfig;
}
