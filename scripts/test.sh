#!/usr/bin/env bash
# Runs every test: unit and server tests (Vitest), then the browser tests (Playwright, Debian's
# Chromium) against a fresh build. Uses PGlite, or the PostgreSQL server named by DATABASE_URL.
set -euo pipefail
cd "$(dirname "$0")/.."
export PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1
PYTHON="$(bash scripts/ensure-test-tools.sh)"
export PYTHON
rm -rf .test-output && mkdir -p .test-output
echo "== database: ${DATABASE_URL:+PostgreSQL server}${DATABASE_URL:-embedded PGlite}"
# Prerendered with the names the browser tests' server runs with, as a deployment builds with its own.
(set -a && . tests/e2e/support/site-identity.env && set +a && npm run build)
status=0
npx vitest run --reporter=default --reporter=json --outputFile.json=.test-output/vitest.json || status=$?
npx playwright test || status=$?
node scripts/test-summary.mjs
exit $status
