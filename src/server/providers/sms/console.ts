import fs from "node:fs/promises";
import path from "node:path";
import { maskPhone } from "#shared/user";
import { lotExpiryText, lowBalanceText, verificationText } from "./text";
import type { SmsProvider } from "./types";

export const SMS_OUTBOX_FILE = "sms-outbox.jsonl";

/**
 * The embedded default: no SMS leaves the machine. The log says a code went to a masked number;
 * the message itself is appended as `{to, text, at}` to DATA_DIR/sms-outbox.jsonl, which a
 * developer (or an end-to-end test) reads to sign in.
 */
export function createConsoleSms(options: { dataDir: string; siteName: string }): SmsProvider {
  const outbox = path.join(options.dataDir, SMS_OUTBOX_FILE);
  async function write(phone: string, text: string, now: Date): Promise<void> {
    await fs.mkdir(options.dataDir, { recursive: true });
    await fs.appendFile(outbox, `${JSON.stringify({ to: phone, text, at: now.toISOString() })}\n`, { mode: 0o600 });
  }
  return {
    name: "console",
    async sendVerificationCode({ phone, code, ttlMinutes, now, log }) {
      await write(phone, verificationText(options.siteName, code, ttlMinutes), now);
      log.info({ sms: { provider: "console", to: maskPhone(phone), outbox } }, "verification code written to the SMS outbox");
    },
    async sendLowBalanceAlert({ phone, balance, threshold, now, log }) {
      await write(phone, lowBalanceText(options.siteName, balance, threshold), now);
      log.info({ sms: { provider: "console", to: maskPhone(phone), outbox } }, "low-balance alert written to the SMS outbox");
    },
    async sendLotExpiryReminder({ phone, now, log, ...lot }) {
      await write(phone, lotExpiryText(options.siteName, lot), now);
      log.info({ sms: { provider: "console", to: maskPhone(phone), outbox } }, "lot-expiry reminder written to the SMS outbox");
    },
  };
}
