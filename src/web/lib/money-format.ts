import { siteConfig } from "./site-config";

export function withCurrency(amount: string): string {
  return `${siteConfig.currencySymbol}${amount}`;
}
