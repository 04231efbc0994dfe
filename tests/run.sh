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

# System packages some tests need, installed through apt when missing (one `apt-get update`):
# the browser tests drive Debian's Chromium (never a browser Playwright downloads), and the Spark tests
# need Java.
apt_packages=()
[ -x /usr/bin/chromium ] || apt_packages+=(chromium)
command -v java >/dev/null || apt_packages+=(openjdk-17-jre-headless)
if [ "${#apt_packages[@]}" -gt 0 ]; then
  if [ "$(id -u)" = 0 ]; then
    apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y "${apt_packages[@]}"
  elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
    sudo apt-get update && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y "${apt_packages[@]}"
  else
    echo "tests/run.sh: ${apt_packages[*]} missing and this user cannot apt-get install them:" \
      "the browser tests (chromium) and the Spark tests (Java) will be skipped" \
      "(the browser tests fail under CI=true)." >&2
  fi
fi

python -m pip install --quiet --upgrade pip
python -m pip install --quiet -e ".[dev]"

ruff check twnb tests bench
mypy  # [tool.mypy] in pyproject.toml: what it checks, and how strictly
python -m pytest "$@"
