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

python -m pip install --quiet --upgrade pip
python -m pip install --quiet -e ".[dev]"

ruff check twnb tests bench
python -m pytest "$@"
