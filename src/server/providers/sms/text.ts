/** The text of a verification SMS as this server writes it (the real providers use their approved templates). */
export function verificationText(siteName: string, code: string, ttlMinutes: number): string {
  return `[${siteName}] Your verification code is ${code}. It is valid for ${ttlMinutes} minutes. Do not share it with anyone.`;
}
