#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The Python client (clients/python): its pytest suite against the debug
# build's acceld on the chip model (the client, the examples, the data
# logger's CSV through acceld replay), then `pip install ./clients/python`
# into a fresh venv and an import of the installed package.
# Installs what it needs first (Debian's pytest, venv and jsonschema, and setuptools
# and wheel to build without PyPI); builds acceld only when
# .build/debug/acceld is missing ($ACCELD_BIN overrides it).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh python3-pytest python3-venv python3-setuptools python3-wheel python3-jsonschema

# Debian's Python, whatever python3 on PATH is (pyenv's, a venv's).
python=/usr/bin/python3

acceld_bin=${ACCELD_BIN:-.build/debug/acceld}
if [ ! -x "$acceld_bin" ]; then
    echo "python-client-test: $acceld_bin is missing: building it (swift build --product acceld)" >&2
    swift build --product acceld 2>&1 | grep -vE '^\[[0-9]+/[0-9]+\]' || true
    [ -x "$acceld_bin" ] || { echo "python-client-test: the build did not make $acceld_bin" >&2; exit 1; }
fi
export ACCELD_BIN
ACCELD_BIN=$(realpath "$acceld_bin")

echo "python-client-test: pytest on clients/python/tests ($("$python" --version), acceld at $ACCELD_BIN)" >&2
"$python" -m pytest -q -p no:cacheprovider --durations=5 ${ACCELD_JUNIT:+--junitxml="$ACCELD_JUNIT"} clients/python/tests

echo "python-client-test: pip install ./clients/python into a fresh venv" >&2
venv=$(mktemp -d /tmp/acceld-venv.XXXXXX)
trap 'rm -rf "$venv" clients/python/build clients/python/acceld.egg-info' EXIT
"$python" -m venv "$venv"
if ! "$venv/bin/pip" install -q --disable-pip-version-check ./clients/python; then
    # Without PyPI the isolated build cannot fetch setuptools: build with
    # Debian's setuptools and wheel, seen from a venv that sees them.
    echo "python-client-test: the isolated build failed (no PyPI?); again with Debian's setuptools and wheel" >&2
    rm -rf "$venv"
    "$python" -m venv --system-site-packages "$venv"
    "$venv/bin/pip" install -q --disable-pip-version-check --no-index --no-build-isolation ./clients/python
fi
(cd / && "$venv/bin/python" - "$venv" <<'PY'
import sys
import acceld
assert acceld.__file__.startswith(sys.argv[1]), acceld.__file__
assert issubclass(acceld.DaemonNotRunning, FileNotFoundError)
try:
    acceld.connect("/nonexistent/acceld.sock")
except acceld.DaemonNotRunning as e:
    assert "systemctl start acceld" in str(e)
print(f"python-client-test: the installed acceld {acceld.__version__} imports from {acceld.__file__}", file=sys.stderr)
PY
)
echo "python-client-test: passed" >&2
