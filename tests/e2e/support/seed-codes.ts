/**
 * Redemption codes for the browser tests. The operator CLI cannot open the e2e server's PGlite
 * while the server runs, so serve.ts creates them through the same service before it listens
 * and leaves the plain codes in the data folder for the tests to read.
 */
import fs from "node:fs";
import path from "node:path";
import { parseMoney } from "../../../src/shared/money";
import type { Db } from "../../../src/server/db/client";
import { createCodes } from "../../../src/server/modules/redemption/service";
import { E2E_DATA_DIR } from "./e2e-env";

export const SEED_CODES_FILE = path.join(E2E_DATA_DIR, "seed-codes.json");
export const SEED_CODE_AMOUNT = "50.00";

export interface SeedCodes {
  amount: string;
  codes: string[];
}

/** E2E_SEED_CODES sets how many (default 10; 0 turns seeding off). */
export async function seedRedemptionCodes(db: Db, count = Number(process.env.E2E_SEED_CODES ?? 10)): Promise<void> {
  if (!(count > 0)) return;
  const { codes } = await createCodes(db, { amount: parseMoney(SEED_CODE_AMOUNT), count, expiresAt: null, now: new Date() });
  const seed: SeedCodes = { amount: SEED_CODE_AMOUNT, codes };
  fs.writeFileSync(SEED_CODES_FILE, JSON.stringify(seed), { mode: 0o600 });
}

/** Which seeded code each spec redeems: specs run side by side, and a code works only once. */
export const SEED_CODES_FOR = {
  creditsRedeemInPage: 0,
  creditsExport: [1, 2],
  accountPage: 3,
  billing: 4,
  applications: 5,
  toolAnswers: 6,
  accessibility: 7,
  callLog: 8,
} as const;

export function readSeedCodes(): SeedCodes {
  return JSON.parse(fs.readFileSync(SEED_CODES_FILE, "utf8")) as SeedCodes;
}
