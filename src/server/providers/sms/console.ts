import fs from "node:fs/promises";
import path from "node:path";
import { maskPhone } from "../../../shared/user";
import { verificationText } from "./text";
import type { SmsProvider } from "./types";

export const SMS_OUTBOX_FILE = "sms-outbox.jsonl";

/**
 * The embedded default: no SMS leaves the machine. The log says a code went to a masked number;
 * the message itself is appended as `{to, text, at}` to DATA_DIR/sms-outbox.jsonl, which a
 * developer (or an end-to-end test) reads to sign in.
 */
export function createConsoleSms(options: { dataDir: string; siteName: string }): SmsProvider {
  const outbox = path.join(options.dataDir, SMS_OUTBOX_FILE);
  return {
    name: "console",
    async sendVerificationCode({ phone, code, ttlMinutes, now, log }) {
      const line = JSON.stringify({ to: phone, text: verificationText(options.siteName, code, ttlMinutes), at: now.toISOString() });
      await fs.mkdir(options.dataDir, { recursive: true });
      await fs.appendFile(outbox, `${line}\n`, { mode: 0o600 });
      log.info({ sms: { provider: "console", to: maskPhone(phone), outbox } }, "verification code written to the SMS outbox");
    },
  };
}
