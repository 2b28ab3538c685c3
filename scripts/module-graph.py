#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The module graph, read from Package.swift (swift package dump-package).

  scripts/module-graph.py          print it, as the README shows it
  scripts/module-graph.py --check  fail unless the README shows exactly
                                   this graph and its layout table names
                                   every folder under Sources/ and the
                                   folders inside them, and every target
                                   imports what it declares and declares
                                   what it imports (so no dependency is dead)
"""
import json
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# Products of packages, by the module names a source file imports.
PRODUCT_MODULES = {"Logging": "Logging", "NIOCore": "NIOCore", "NIOPosix": "NIOPosix",
                   "NIOEmbedded": "NIOEmbedded", "ArgumentParser": "ArgumentParser",
                   "NIOHTTP1": "NIOHTTP1", "NIOWebSocket": "NIOWebSocket", "Prometheus": "Prometheus"}


def targets():
    manifest = json.loads(subprocess.check_output(["swift", "package", "dump-package"], cwd=ROOT))
    for target in manifest["targets"]:
        deps = [list(d.values())[0][0] for d in target["dependencies"]]
        path = target.get("path") or os.path.join("Tests" if target["type"] == "test" else "Sources", target["name"])
        yield target["name"], target["type"], deps, path


def graph_lines(all_targets):
    lines = []
    for name, kind, deps, _ in all_targets:
        if kind == "test" or name in ("TestSupport", "calibration-writer"):
            continue
        lines.append(f"{name} ({kind}): {', '.join(deps) if deps else 'nothing'}")
    return lines


def imports(path):
    found = set()
    for folder, _, files in os.walk(os.path.join(ROOT, path)):
        for file in files:
            if file.endswith(".swift"):
                with open(os.path.join(folder, file)) as f:
                    found |= set(re.findall(r"^(?:@testable )?import (\w+)", f.read(), re.M))
            elif file.endswith(".c"):
                found.add("<c>")
    return found


def layout_problems(readme):
    """The README's layout table names every folder under Sources/ in a
    row of its own, and every folder inside one (`Y/` in its row, or
    `Sources/X/Y`); a C module's `include` is its layout, not a part."""
    rows = dict(re.findall(r"^\| `(Sources/[^`]+)` \| (.*)\|$", readme, re.M))
    problems = []
    sources = os.path.join(ROOT, "Sources")
    for folder in sorted(os.listdir(sources)):
        if not os.path.isdir(os.path.join(sources, folder)):
            continue
        row = rows.get(f"Sources/{folder}")
        if row is None:
            problems.append(f"README.md's layout table has no row for Sources/{folder}: add one saying what it is")
            continue
        for inner in sorted(os.listdir(os.path.join(sources, folder))):
            if inner == "include" or not os.path.isdir(os.path.join(sources, folder, inner)):
                continue
            if f"`{inner}/" not in row and f"Sources/{folder}/{inner}" not in readme:
                problems.append(f"README.md's row for Sources/{folder} does not name its folder {inner}/: say what it holds")
    return problems


def main():
    all_targets = list(targets())
    lines = graph_lines(all_targets)
    if "--check" not in sys.argv:
        print("\n".join(lines))
        return 0
    problems = []
    with open(os.path.join(ROOT, "README.md")) as f:
        readme = f.read()
    block = re.search(r"<!-- module-graph -->\n```\n(.*?)```", readme, re.S)
    if not block or block.group(1).strip().splitlines() != lines:
        problems.append("README.md's module graph differs from Package.swift; replace the block after <!-- module-graph --> with:\n" + "\n".join(lines))
    problems += layout_problems(readme)
    local = {name for name, *_ in all_targets}
    for name, kind, deps, path in all_targets:
        used = imports(path)
        if "<c>" in used:
            continue
        for dep in deps:
            if dep not in used and dep not in ("CI2C", "FuzzerDriver"):
                problems.append(f"{name} declares {dep} but no source of it imports it: drop the dependency")
        for module in used:
            if (module in local or module in PRODUCT_MODULES) and module not in deps and module != name:
                problems.append(f"{name} imports {module} without declaring it")
    for problem in problems:
        print("module-graph: " + problem, file=sys.stderr)
    if not problems:
        print(f"module-graph: README and Package.swift agree ({len(lines)} targets); every dependency is imported")
    return 1 if problems else 0


sys.exit(main())
