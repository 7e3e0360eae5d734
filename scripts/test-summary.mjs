// Closes scripts/test.sh: one line per run of each runner and for the whole, from their JSON
// reports (a report that is missing counts as a failure), each failed test with its error's first
// lines (a CI log is often read from its end only), and the time each phase took.
import fs from "node:fs";
import path from "node:path";
import { stripVTControlCharacters } from "node:util";

function read(file) {
  try {
    return JSON.parse(fs.readFileSync(file, "utf8"));
  } catch {
    return null;
  }
}
// The first lines of an error, without the terminal's colour codes.
const firstLines = (message = "") =>
  stripVTControlCharacters(message)
    .split("\n")
    .filter((line) => line.trim() !== "")
    .slice(0, 4)
    .map((line) => `      ${line.trim().slice(0, 300)}`)
    .join("\n");

function vitestFailures(json) {
  const failures = [];
  for (const file of json.testResults ?? []) {
    const failedTests = (file.assertionResults ?? []).filter((t) => t.status === "failed");
    for (const t of failedTests) failures.push(`${path.relative(".", file.name)}: ${t.fullName}\n${firstLines(t.failureMessages?.[0])}`);
    // A hook or the file itself failing fails no test of it.
    if (file.status === "failed" && failedTests.length === 0) failures.push(`${path.relative(".", file.name)}\n${firstLines(file.message)}`);
  }
  return failures;
}

function playwrightFailures(suites, file = "") {
  const failures = [];
  for (const suite of suites ?? []) {
    failures.push(...playwrightFailures(suite.suites, suite.file ?? file));
    for (const spec of suite.specs ?? []) {
      for (const test of spec.tests ?? []) {
        if (test.status !== "unexpected") continue;
        const error = test.results?.at(-1)?.error?.message;
        failures.push(`${spec.file ?? file}: ${spec.title}\n${firstLines(error)}`);
      }
    }
  }
  return failures;
}

const failures = [];
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
  for (const failure of report.startsWith("vitest") ? vitestFailures(json) : playwrightFailures(json.suites)) failures.push(`  ${label}: ${failure}`);
}
if (failures.length > 0) console.log(`failed:\n${failures.join("\n")}`);
if (fs.existsSync(".test-output/phases.txt")) {
  const phases = fs.readFileSync(".test-output/phases.txt", "utf8");
  const total = (unit) => [...phases.matchAll(new RegExp(`${unit}\\s+([\\d.]+) s`, "g"))].reduce((sum, match) => sum + Number(match[1]), 0);
  process.stdout.write(phases);
  // Phases that ran side by side overlap: the whole run's wall time is measured on its own.
  const wall = fs.existsSync(".test-output/wall-seconds") ? Number(fs.readFileSync(".test-output/wall-seconds", "utf8")) : total("wall");
  console.log(`${"all phases".padEnd(24)} wall ${String(wall).padStart(5)} s  cpu ${total("cpu").toFixed(1).padStart(7)} s`);
}
console.log(`tests: ${passed} passed, ${failed} failed, ${skipped} skipped`);
