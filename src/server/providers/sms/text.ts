/** The text of a low-balance alert SMS as the console provider writes it. */
export function lowBalanceText(siteName: string, balance: string, threshold: string): string {
  return `[${siteName}] Your balance is ${balance}, below your alert threshold of ${threshold}. Top up to keep your API calls running.`;
}

/** The text of a lot-expiry reminder SMS as the console provider writes it. */
export function lotExpiryText(siteName: string, sms: { packageName: string; toolName: string; unitsLeft: string; expiresAt: string }): string {
  return `[${siteName}] ${sms.packageName} for ${sms.toolName} has ${sms.unitsLeft} left and expires at ${sms.expiresAt}. Units left then are not refunded.`;
}

/** The text of a verification SMS as this server writes it (the real providers use their approved templates). */
export function verificationText(siteName: string, code: string, ttlMinutes: number): string {
  return `[${siteName}] Your verification code is ${code}. It is valid for ${ttlMinutes} minutes. Do not share it with anyone.`;
}
