#!/usr/bin/env python3
"""Checks that every target imports exactly the modules Package.swift says it depends on.

SwiftPM lets a debug build import a module that the target does not declare when
another target happened to build it first; a clean or release build then fails. And a
dependency declared but never imported is a wall drawn on the map that is not in the
house. So each target's `import`s of this package's modules (and of swift-log's
Logging and swift-argument-parser's ArgumentParser) must equal its declared ones.

Run from the repository; `make test` runs it. Exit 1 and a line per target otherwise.
"""
import glob
import json
import os
import re
import subprocess
import sys

EXTERNAL = {"Logging", "ArgumentParser"}
IMPORT = re.compile(r"^\s*(?:@testable\s+)?import\s+(\w+)", re.MULTILINE)


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    package = json.loads(subprocess.check_output(
        ["swift", "package", "dump-package"], cwd=root, stderr=subprocess.DEVNULL))
    targets = {t["name"] for t in package["targets"]}
    known = targets | EXTERNAL
    problems = []
    for target in package["targets"]:
        if target["type"] in ("plugin", "system"):
            continue
        folder = target.get("path") or os.path.join(
            "Tests" if target["type"] == "test" else "Sources", target["name"])
        declared = set()
        for dependency in target["dependencies"]:
            for kind in ("byName", "target", "product"):
                if kind in dependency:
                    declared.add(dependency[kind][0])
        imported = set()
        for path in glob.glob(os.path.join(root, folder, "**", "*.swift"), recursive=True):
            with open(path, encoding="utf-8") as source:
                imported |= {name for name in IMPORT.findall(source.read()) if name in known}
        imported.discard(target["name"])
        undeclared, unused = sorted(imported - declared), sorted((declared & known) - imported)
        if undeclared:
            problems.append(f"{target['name']} imports {', '.join(undeclared)} without declaring it")
        if unused:
            problems.append(f"{target['name']} declares {', '.join(unused)} without importing it")
    for problem in problems:
        print(f"check-module-dependencies: {problem}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
