// Prints one closing line for the whole run, from the two runners' JSON reports.
import fs from "node:fs";

function read(file) {
  try {
    return JSON.parse(fs.readFileSync(file, "utf8"));
  } catch {
    return null;
  }
}
const vitest = read(".test-output/vitest.json");
// scripts/test.sh empties .test-output first; Playwright names its report after the port outside CI.
const playwrightReport = fs.readdirSync(".test-output").find((name) => /^playwright(-\d+)?\.json$/.test(name));
const playwright = playwrightReport ? read(`.test-output/${playwrightReport}`) : null;
let passed = 0;
let failed = 0;
let skipped = 0;
if (vitest) {
  passed += vitest.numPassedTests;
  failed += vitest.numFailedTests;
  skipped += vitest.numPendingTests + vitest.numTodoTests;
} else failed += 1;
if (playwright) {
  passed += playwright.stats.expected + playwright.stats.flaky;
  failed += playwright.stats.unexpected;
  skipped += playwright.stats.skipped;
} else failed += 1;
console.log(`unit+server: ${vitest ? vitest.numPassedTests : 0} passed; browser: ${playwright ? playwright.stats.expected : 0} passed`);
console.log(`tests: ${passed} passed, ${failed} failed, ${skipped} skipped`);
