import fs from "node:fs";
import path from "node:path";
import { SMS_OUTBOX_FILE } from "../providers/sms/console";

export interface OutboxMessage {
  to: string;
  text: string;
  at: string;
}

export function readOutbox(dataDir: string): OutboxMessage[] {
  let text: string;
  try {
    text = fs.readFileSync(path.join(dataDir, SMS_OUTBOX_FILE), "utf8");
  } catch {
    return [];
  }
  return text
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as OutboxMessage);
}

/** The code in the newest message the console SMS provider wrote to `phone`, or null. */
export function latestCodeFor(dataDir: string, phone: string): string | null {
  const message = readOutbox(dataDir)
    .filter((m) => m.to === phone)
    .at(-1);
  return message ? (/\b(\d{6})\b/.exec(message.text)?.[1] ?? null) : null;
}
