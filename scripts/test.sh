#!/usr/bin/env bash
# Runs every test on both databases (README.md, "Testing"): one build; the Vitest files that do not
# use the run's database, once; Vitest and Playwright on embedded PGlite; then on the PostgreSQL
# server (DATABASE_URL, or the local one) every Vitest file and browser spec where the database
# matters (vitest.config.ts and playwright.config.ts say which). Each phase's wall and CPU time goes
# to .test-output/phases.txt and the closing summary.
set -euo pipefail
cd "$(dirname "$0")/.."
export PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1
PYTHON="$(bash scripts/ensure-test-tools.sh)"
export PYTHON
POSTGRES_URL="${DATABASE_URL:-postgres://postgres@127.0.0.1:5432/postgres}"
unset DATABASE_URL
rm -rf .test-output && mkdir -p .test-output

# CPU seconds of every process the shell that ran `times` has waited for (and of theirs).
cpu_seconds() {
  awk 'NR == 2 { for (i = 1; i <= 2; i++) { split($i, t, "m"); sub("s", "", t[2]); n += t[1] * 60 + t[2] } printf "%.1f", n }' "$1"
}
# Runs one phase and records its wall and CPU time; returns its exit code. The phase runs in a
# subshell of its own, which reads its `times` as it ends: this shell's own would also count the
# other lane, reaped whenever it ends, into whichever phase was running then.
phase() {
  local label=$1 start=$SECONDS code=0 times_file=".test-output/.times-${1// /-}"
  shift
  echo "== $label"
  (
    status=0
    "$@" || status=$?
    times >"$times_file"
    exit "$status"
  ) || code=$?
  printf '%-24s wall %5d s  cpu %7.1f s%s\n' "$label" $((SECONDS - start)) "$(cpu_seconds "$times_file")" \
    "$([ "$code" = 0 ] || echo "  (exit $code)")" >>.test-output/phases.txt
  return "$code"
}
# Starts a phase in the background, its output kept in .test-output/<label>.log until `finish`
# prints it, so two phases' lines never interleave.
start_in_background() {
  local label=$1
  shift
  (phase "$label" "$@" >".test-output/${label// /-}.log" 2>&1) &
  background_pid=$!
}
# Waits for the phase `start_in_background` started, prints its output, returns its exit code.
finish() {
  local label=$1 code=0
  wait "$background_pid" || code=$?
  cat ".test-output/${label// /-}.log"
  return "$code"
}
run_vitest() {
  local leg=$1
  shift
  npx vitest run "$@" --reporter=default --reporter=json --outputFile.json=".test-output/vitest-$leg.json"
}

tests_started=$SECONDS
# One build for both legs, prerendered with the names the browser tests' server runs with.
phase build bash -c 'set -a && . tests/e2e/support/site-identity.env && set +a && npm run build'
# The tests that start the compiled server use this build's, instead of compiling it again each.
export TEST_COMPILED_SERVER="$PWD/dist"
status=0
# Two lanes side by side, as the suite waits far more than it computes (a run used about 0.6 of the
# two cores): the server tests on both databases in one; the browser tests on both databases, then
# the ONCE files, in the other (README.md, "Testing"). The lanes took 1,510 and 1,161 s with the ONCE
# files in the server lane (2026-11-29); the browser lane then got a quarter cheaper (decision 062).
browser_and_once_lane() {
  local code=0
  DATABASE_URL="$POSTGRES_URL" phase "playwright PostgreSQL" env E2E_REPORT=.test-output/playwright-postgres.json E2E_DATABASE_SPECS_ONLY=1 npx playwright test || code=1
  phase "playwright PGlite" env E2E_REPORT=.test-output/playwright-pglite.json npx playwright test || code=1
  phase "vitest once" run_vitest once --project once || code=1
  return "$code"
}
start_in_background "browser lane" browser_and_once_lane
DATABASE_URL="$POSTGRES_URL" phase "vitest PostgreSQL" run_vitest postgres --project both || status=1
phase "vitest PGlite" run_vitest pglite --project both || status=1
finish "browser lane" || status=1
echo "$((SECONDS - tests_started))" >.test-output/wall-seconds
node scripts/test-summary.mjs
exit $status
