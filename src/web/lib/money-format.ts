import { siteConfig } from "./site-config";

/** An amount from the API with the site's currency, its sign first: "¥1.50", "-¥0.50" (an operator's debit). */
export function withCurrency(amount: string): string {
  return amount.startsWith("-") ? `-${siteConfig.currencySymbol}${amount.slice(1)}` : `${siteConfig.currencySymbol}${amount}`;
}
