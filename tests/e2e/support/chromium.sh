#!/bin/sh
# Debian's Chromium (or CHROMIUM_PATH's) for the browser tests, without the right to raise its own
# priority. Run as root, as on CI, Chromium sets its browser, GPU and compositor threads to nice -8,
# six times a nice-0 process's share of a busy core: on two cores its pages' painting then starves
# the test server the pages wait on, the database behind it and the other lane's tests
# (docs/decisions/062). Without CAP_SYS_NICE its calls to raise a thread fail and it runs on at 0.
chromium="${CHROMIUM_PATH:-/usr/bin/chromium}"
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null 2>&1; then
  exec setpriv --bounding-set -sys_nice "$chromium" "$@"
fi
exec "$chromium" "$@"
