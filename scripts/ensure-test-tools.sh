#!/usr/bin/env bash
# What the tests need beyond npm packages, from Debian's packages when missing (needs root, as on
# CI): Chromium for the browser tests, a Python with `requests` for the docs' Python example, and
# nginx and redis-server for the tests of several server processes (tests/cluster/), and Prometheus
# with Alertmanager for the tests of the shipped monitoring configuration (deploy/).
# Prints the Python interpreter to use.
set -euo pipefail
missing=()
chromium_path="${CHROMIUM_PATH:-/usr/bin/chromium}"
[ -x "$chromium_path" ] || missing+=(chromium fonts-noto-cjk)
[ -x "${NGINX_PATH:-/usr/sbin/nginx}" ] || missing+=(nginx-light)
command -v redis-server >/dev/null 2>&1 || missing+=(redis-server)
command -v promtool >/dev/null 2>&1 || missing+=(prometheus)
command -v prometheus-alertmanager >/dev/null 2>&1 || missing+=(prometheus-alertmanager)
python=python3
if ! python3 -c "import requests" >/dev/null 2>&1; then
  python=/usr/bin/python3
  /usr/bin/python3 -c "import requests" >/dev/null 2>&1 || missing+=(python3-requests)
fi
if [ "${#missing[@]}" -gt 0 ]; then
  if [ "$(id -u)" != "0" ]; then
    echo "missing for the tests: ${missing[*]} — install them with apt-get (Debian) or set CHROMIUM_PATH." >&2
    exit 1
  fi
  echo "Installing ${missing[*]} from Debian's packages…" >&2
  apt-get -o Acquire::Retries=5 update -qq >&2
  DEBIAN_FRONTEND=noninteractive apt-get -o Acquire::Retries=5 install -y -qq "${missing[@]}" >/dev/null
fi
echo "$python"
