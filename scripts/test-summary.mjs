// Closes scripts/test.sh: one line per run of each runner and for the whole, from their JSON
// reports (a report that is missing counts as a failure), and the time each phase took.
import fs from "node:fs";

function read(file) {
  try {
    return JSON.parse(fs.readFileSync(file, "utf8"));
  } catch {
    return null;
  }
}
let passed = 0;
let failed = 0;
let skipped = 0;
for (const [report, label] of [
  ["vitest-once", "unit+server, files run once"],
  ["vitest-pglite", "unit+server on PGlite"],
  ["playwright-pglite", "browser on PGlite"],
  ["vitest-postgres", "unit+server on PostgreSQL"],
  ["playwright-postgres", "browser on PostgreSQL"],
]) {
  const json = read(`.test-output/${report}.json`);
  if (!json) {
    failed += 1;
    console.log(`${label}: no report`);
    continue;
  }
  const counts = report.startsWith("vitest")
    ? { passed: json.numPassedTests, failed: json.numFailedTests, skipped: json.numPendingTests + json.numTodoTests }
    : { passed: json.stats.expected + json.stats.flaky, failed: json.stats.unexpected, skipped: json.stats.skipped };
  passed += counts.passed;
  failed += counts.failed;
  skipped += counts.skipped;
  console.log(`${label}: ${counts.passed} passed, ${counts.failed} failed`);
}
if (fs.existsSync(".test-output/phases.txt")) {
  const phases = fs.readFileSync(".test-output/phases.txt", "utf8");
  const total = (unit) => [...phases.matchAll(new RegExp(`${unit}\\s+([\\d.]+) s`, "g"))].reduce((sum, match) => sum + Number(match[1]), 0);
  process.stdout.write(phases);
  // Phases that ran side by side overlap: the whole run's wall time is measured on its own.
  const wall = fs.existsSync(".test-output/wall-seconds") ? Number(fs.readFileSync(".test-output/wall-seconds", "utf8")) : total("wall");
  console.log(`${"all phases".padEnd(24)} wall ${String(wall).padStart(5)} s  cpu ${total("cpu").toFixed(1).padStart(7)} s`);
}
console.log(`tests: ${passed} passed, ${failed} failed, ${skipped} skipped`);
