#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The module graph, read from Package.swift (swift package dump-package).

  scripts/module-graph.py          print it, as the README shows it
  scripts/module-graph.py --check  fail unless the README shows exactly
                                   this graph and its layout table names
                                   every folder under Sources/ and the
                                   folders inside them, and every target
                                   imports what it declares and declares
                                   what it imports (so no dependency is dead),
                                   and no executable links a C library (a
                                   system library or a target of C sources)
                                   that none of its modules imports, nor
                                   an installed one any C library beyond
                                   those C_LIBRARIES gives it
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

# The C modules each installed executable is meant to link. The closure
# rule alone cannot see a driver pulled in through a module that does
# import it (the gateway linked libi2c through AccelConfiguration ->
# AccelDriver -> CI2C, issue 36): changing this table is a decision.
C_LIBRARIES = {"acceld": {"CI2C", "CGPIO", "CKissFFT"}, "accelctl": {"CI2C", "CGPIO", "CKissFFT"},
               "acceld-gateway": {"CMosquitto"}, "acceld-sensorproxy": {"CSensorProxyBus", "CSystemd"},
               "acceld-ros2": {"CROS2Types"}}


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
                    found |= set(re.findall(r"^(?:@testable |@_exported )?import (\w+)", f.read(), re.M))
            elif file.endswith(".c"):
                found.add("<c>")
    return found


def c_library_problems(all_targets, imports_of, intended=C_LIBRARIES):
    """Every C module an executable's dependency closure holds is linked
    into it; each must be imported by a Swift module of that closure, or
    included by a C module that is (CSensorProxyBus's CSystemd). A C
    module is a system library or a target whose sources are C.
    `intended` names, for some executables, exactly the C modules they may
    link. `imports_of(path)` is `imports`, or a test's stand-in."""
    by_name = {name: (kind, deps, path) for name, kind, deps, path in all_targets}
    found = {name: imports_of(path) for name, (_, _, path) in by_name.items()}
    c_modules = {name for name, (kind, _, _) in by_name.items() if kind == "system" or "<c>" in found[name]}
    problems = []
    for executable, (kind, _, _) in by_name.items():
        if kind != "executable":
            continue
        # The closure, each module with the chain that brings it in.
        via = {executable: [executable]}
        queue = [executable]
        while queue:
            module = queue.pop(0)
            for dep in by_name[module][1]:
                if dep in by_name and dep not in via:
                    via[dep] = via[module] + [dep]
                    queue.append(dep)
        used = set()
        for module in via:
            if module not in c_modules:
                used |= found[module] & c_modules
        while True:  # what the C modules in use include, through their own dependencies
            more = {dep for module in used for dep in by_name[module][1] if dep in c_modules} - used
            if not more:
                break
            used |= more
        for library in sorted(set(via) & c_modules - used):
            problems.append(f"{executable} links {library} ({' -> '.join(via[library])}) but none of its modules imports it: "
                            "move what they need out of the module that depends on it")
        if executable in intended:
            linked = set(via) & c_modules
            for library in sorted(linked - intended[executable]):
                problems.append(f"{executable} links {library} ({' -> '.join(via[library])}), which C_LIBRARIES in "
                                "scripts/module-graph.py does not give it: cut the dependency that brings it in")
            for library in sorted(intended[executable] - linked):
                problems.append(f"{executable} no longer links {library}: take it out of C_LIBRARIES in scripts/module-graph.py")
    return problems


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
    problems += c_library_problems(all_targets, imports)
    for problem in problems:
        print("module-graph: " + problem, file=sys.stderr)
    if not problems:
        print(f"module-graph: README and Package.swift agree ({len(lines)} targets); every dependency is imported, "
              "and every executable links only the C libraries its modules import")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
