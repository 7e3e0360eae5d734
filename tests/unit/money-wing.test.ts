import fs from "node:fs";
import path from "node:path";
import { expect, it } from "vitest";

/**
 * One wing writes money (docs/decisions/048): balances, ledger entries and the usage rows that hold
 * a call's charge are written only in src/server/modules/ledger/, which alone calls the SQL
 * functions that write them. Other modules call the ledger's functions.
 */
const WING = "src/server/modules/ledger/";
const WRITES = [
  /\binsert\s+into\s+(ledger_entries|usage_records)\b/i,
  /\bupdate\s+(users|usage_records)\s+set\b/i,
  /\b(charge_calls?|settle_call)\(/,
  /\.(insert|update)\(\s*(ledgerEntries|usageRecords)\s*\)/,
  /\.update\(\s*users\s*\)\s*\.set\(\{[^}]*\bbalance\b/,
];

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return e.name === "testing" ? [] : sources(full);
    return /\.tsx?$/.test(e.name) && !/\.test\.tsx?$/.test(e.name) ? [full] : [];
  });
}

it("only the ledger module writes balances, ledger entries and usage rows", () => {
  const root = path.resolve(import.meta.dirname, "../..");
  const outside = sources(path.join(root, "src/server"))
    .map((file) => path.relative(root, file))
    .filter((file) => !file.startsWith(WING))
    .filter((file) => WRITES.some((pattern) => pattern.test(fs.readFileSync(path.join(root, file), "utf8"))));
  expect(outside, `money is written in ${WING} only: call its functions instead`).toEqual([]);
});
