#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The Python client (clients/python): its pytest suite against the debug
# build's acceld on the chip model (the client, the examples, the data
# logger's CSV through acceld replay), then `pip install ./clients/python`
# into a fresh venv, an import of the installed package, and a look at its
# metadata: the `test` extra must declare what tests/ imports (pytest,
# jsonschema), read from the metadata since PyPI may not be reachable here.
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
(tests=$PWD/clients/python/tests; cd / && "$venv/bin/python" - "$venv" "$tests" <<'PY'
import re
import sys
from importlib.metadata import metadata, requires
import acceld
assert acceld.__file__.startswith(sys.argv[1]), acceld.__file__
assert issubclass(acceld.DaemonNotRunning, FileNotFoundError)
try:
    acceld.connect("/nonexistent/acceld.sock")
except acceld.DaemonNotRunning as e:
    assert "systemctl start acceld" in str(e)
print(f"python-client-test: the installed acceld {acceld.__version__} imports from {acceld.__file__}", file=sys.stderr)

# `pip install './clients/python[test]'` then `pytest clients/python` in a
# plain venv: the `test` extra must bring pytest, jsonschema and whatever
# else tests/ imports beyond the standard library. Read from the installed
# metadata (Requires-Dist: jsonschema; extra == "test"), which needs no PyPI;
# the package itself must need nothing but the standard library.
import ast
from pathlib import Path
tests = Path(sys.argv[2])
local = {p.stem for p in tests.glob("*.py")} | {"acceld"}
imported = set()
for path in tests.glob("*.py"):
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            imported.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            imported.add(node.module.split(".")[0])
needed = {"pytest", "jsonschema"} | (imported - set(sys.stdlib_module_names) - local)
assert "test" in (metadata("acceld").get_all("Provides-Extra") or []), "acceld declares no 'test' extra"
extras = {}
for line in requires("acceld") or []:
    name, _, marker = line.partition(";")
    m = re.search(r"""extra\s*==\s*["']([\w-]+)["']""", marker)
    assert m, f"acceld requires {line!r} outside any extra: the package needs only the standard library"
    extras.setdefault(m.group(1), set()).add(re.split(r"[\s<>=!~\[(]", name.strip(), maxsplit=1)[0].lower())
missing = needed - extras.get("test", set())
assert not missing, f"the 'test' extra lacks {sorted(missing)}, which tests/ imports: it declares {sorted(extras.get('test', []))}"
print(f"python-client-test: the installed acceld's 'test' extra declares {', '.join(sorted(extras['test']))}, "
      f"all tests/ imports beyond the standard library", file=sys.stderr)
PY
)
echo "python-client-test: passed" >&2
