#!/usr/bin/env bash
# Debian's Chromium (or CHROMIUM_PATH's) for the browser tests, without the right to raise its own
# priority. Run as root, as on CI, Chromium sets its browser, GPU and compositor threads to nice -8,
# six times a nice-0 process's share of a busy core: on two cores its pages' painting then starves
# the test server the pages wait on, the database behind it and the other lane's tests
# (docs/decisions/062). Without CAP_SYS_NICE (and with the nice limit at 0, as here) its calls to
# raise a thread fail and it runs on at 0.
#
# Chromium reads only the last --disable-features: Playwright passes its own list and
# playwright.config.ts's CHROMIUM_ARGS another, so they are joined into one here.
set -euo pipefail
chromium="${CHROMIUM_PATH:-/usr/bin/chromium}"
args=()
disabled=()
for arg in "$@"; do
  case "$arg" in
    --disable-features=*) disabled+=("${arg#--disable-features=}") ;;
    *) args+=("$arg") ;;
  esac
done
if [ "${#disabled[@]}" -gt 0 ]; then
  args+=("--disable-features=$(IFS=,; echo "${disabled[*]}")")
fi
# A root without the right to change its own capability sets (some containers) runs Chromium as it is.
if [ "$(id -u)" = 0 ] && setpriv --bounding-set -sys_nice --inh-caps -sys_nice true >/dev/null 2>&1; then
  exec setpriv --bounding-set -sys_nice --inh-caps -sys_nice "$chromium" ${args[@]+"${args[@]}"}
fi
exec "$chromium" ${args[@]+"${args[@]}"}
