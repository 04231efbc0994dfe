#!/usr/bin/env bash
# Installs everything the tests need and runs them all. README's test command; .ci/run calls it.
# Outside a virtual environment it makes (or reuses) ./.venv so nothing lands in the system Python.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ -z "${VIRTUAL_ENV:-}" ]; then
  python3 -m venv .venv
  # shellcheck disable=SC1091
  . .venv/bin/activate
fi

# The browser tests drive Debian's Chromium (never a browser Playwright downloads); install it if missing.
if [ ! -x /usr/bin/chromium ]; then
  if [ "$(id -u)" = 0 ]; then
    apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y chromium
  elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
    sudo apt-get update && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y chromium
  else
    echo "tests/run.sh: /usr/bin/chromium is missing and this user cannot apt-get install it:" \
      "the browser tests will be skipped (they fail under CI=true)." >&2
  fi
fi

python -m pip install --quiet --upgrade pip
python -m pip install --quiet -e ".[dev]"

ruff check twnb tests bench
python -m pytest "$@"
