import { z } from "zod";

/** GET /api/v1/tools/user-info */
export const userInfoSchema = z.object({
  id: z.number().int(),
  phone: z.string().describe("Masked phone number, such as 138****8000"),
  balance: z.string().describe("Balance as a decimal string, exact to the micro-unit"),
  referralCode: z.string(),
  createdAt: z.string().describe("ISO 8601 time the account was created"),
});

export type UserInfo = z.infer<typeof userInfoSchema>;

export function maskPhone(phone: string): string {
  return phone.length === 11 ? `${phone.slice(0, 3)}****${phone.slice(7)}` : "*".repeat(phone.length);
}
