import type { PaymentProviderId } from "#shared/money-api";
import type { PaymentProvidersConfig } from "./config";
import { createAlipayProvider } from "./alipay";
import type { PaymentProvider } from "./types";
import { createWechatPayProvider } from "./wechatpay";

/** The providers whose credentials are configured; the others are simply not offered. */
export function configuredPaymentProviders(config: PaymentProvidersConfig): Map<PaymentProviderId, PaymentProvider> {
  const providers = new Map<PaymentProviderId, PaymentProvider>();
  if (config.alipay) providers.set("alipay", createAlipayProvider(config.alipay));
  if (config.wechat) providers.set("wechat", createWechatPayProvider(config.wechat));
  return providers;
}
