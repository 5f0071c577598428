#!/usr/bin/env python3
"""Checks that every target imports exactly the modules Package.swift says it depends on.

SwiftPM lets a debug build import a module that the target does not declare when
another target happened to build it first; a clean or release build then fails. And a
dependency declared but never imported is a wall drawn on the map that is not in the
house. So each target's `import`s of this package's modules (and of swift-log's
Logging and swift-argument-parser's ArgumentParser) must equal its declared ones.

Then the layer order docs/ARCHITECTURE.md states, on what the targets import: the
engine (and what it stands on) never imports a door or the transport, and the transport
never imports the engine; a front door never imports another (the Varlink door and the
ssh-agent door, whose two modules are one door over two backends); the client side
never imports the daemon's modules; the bottom modules import none of the package's, and the
wire formats (Varlink's and ssh-agent's) nothing but PinVaultCrypto.

Run from the repository; `make test` runs it (and `--self-test`, which feeds it graphs
with a wrong edge each and checks that each is refused). Exit 1 and a line per problem
otherwise.
"""
import glob
import json
import os
import re
import subprocess
import sys

EXTERNAL = {"Logging", "ArgumentParser"}

# The front doors, by protocol: modules of one door may import each other, never another's.
DOORS = {"PinVaultVarlink": "Varlink", "PinVaultSSHAgent": "ssh-agent", "PinVaultAgentDoor": "ssh-agent",
         "PinVaultCTAPHIDDoor": "CTAPHID", "PinVaultWebAuthn": "CTAPHID"}
# The engine and what it stands on: no door, no transport, no daemon.
ENGINE_SIDE = {"PinVaultEngine", "PinVaultStore", "PinVaultCore"}
# The client side: the wire format and the user's own agent, never the daemon's modules.
CLIENT_SIDE = {"PinVaultClient", "PinVaultUserAgent", "pinvault"}
DAEMON_MODULES = {"PinVaultEngine", "PinVaultStore", "PinVaultCore", "PinVaultDaemon", "PinVaultVarlink",
                  "PinVaultSSHAgent", "PinVaultEmbedded"}
# The bottom: no module of this package.
BOTTOM = {"PinVaultCrypto", "PinVaultSystem"}
# The wire formats: no I/O, no vault; only Crypto's secret types and key table.
WIRE_FORMATS = {"PinVaultProtocol", "PinVaultSSHProtocol"}


def layer_problems(imports):
    """The edges of `imports` (module -> set of modules) that break the layer order."""
    problems = []
    for module, imported in sorted(imports.items()):
        for other in sorted(imported):
            why = None
            if module in ENGINE_SIDE and (other in DOORS or other in {"PinVaultTransport", "PinVaultDaemon"}):
                why = "the engine never imports a door or the transport"
            elif module == "PinVaultTransport" and (other in ENGINE_SIDE or other in DOORS):
                why = "the transport never imports the engine or a door"
            elif module in DOORS and other in DOORS and DOORS[module] != DOORS[other]:
                why = f"the {DOORS[module]} door never imports the {DOORS[other]} door"
            elif module in CLIENT_SIDE and other in DAEMON_MODULES:
                why = "the client side never imports the daemon's modules"
            elif module in BOTTOM and other.startswith("PinVault") and other != module:
                why = "a bottom module imports none of the package's"
            elif module in WIRE_FORMATS and other.startswith("PinVault") and other not in {module, "PinVaultCrypto"}:
                why = "a wire format imports nothing of the package's but PinVaultCrypto"
            if why:
                problems.append(f"{module} imports {other}: {why} (docs/ARCHITECTURE.md)")
    return problems


def self_test():
    """Each wrong edge is refused, and the graph as ARCHITECTURE.md draws it passes."""
    sound = {
        "PinVaultEngine": {"PinVaultStore", "PinVaultCore", "PinVaultCrypto", "PinVaultSSHProtocol", "PinVaultSystem"},
        "PinVaultSSHAgent": {"PinVaultAgentDoor", "PinVaultEngine", "PinVaultTransport"},
        "PinVaultVarlink": {"PinVaultEngine", "PinVaultTransport", "PinVaultProtocol"},
        "PinVaultUserAgent": {"PinVaultAgentDoor", "PinVaultClient", "PinVaultTransport"},
    }
    wrong = [
        ("PinVaultEngine", "PinVaultVarlink"), ("PinVaultEngine", "PinVaultAgentDoor"),
        ("PinVaultStore", "PinVaultTransport"), ("PinVaultTransport", "PinVaultEngine"),
        ("PinVaultSSHAgent", "PinVaultVarlink"), ("PinVaultVarlink", "PinVaultAgentDoor"),
        ("PinVaultUserAgent", "PinVaultEngine"), ("PinVaultClient", "PinVaultVarlink"),
        ("PinVaultCrypto", "PinVaultSystem"), ("PinVaultSSHProtocol", "PinVaultSystem"),
        ("PinVaultProtocol", "PinVaultTransport"),
    ]
    failures = [] if not layer_problems(sound) else [f"a sound graph refused: {layer_problems(sound)}"]
    for module, other in wrong:
        graph = {name: set(edges) for name, edges in sound.items()}
        graph.setdefault(module, set()).add(other)
        if not layer_problems(graph):
            failures.append(f"{module} importing {other} passed")
    for failure in failures:
        print(f"check-module-dependencies --self-test: {failure}", file=sys.stderr)
    return 1 if failures else 0
IMPORT = re.compile(r"^\s*(?:@testable\s+)?import\s+(\w+)", re.MULTILINE)


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    package = json.loads(subprocess.check_output(
        ["swift", "package", "dump-package"], cwd=root, stderr=subprocess.DEVNULL))
    targets = {t["name"] for t in package["targets"]}
    known = targets | EXTERNAL
    problems = []
    imports = {}
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
        if target["type"] != "test":
            imports[target["name"]] = imported
        undeclared, unused = sorted(imported - declared), sorted((declared & known) - imported)
        if undeclared:
            problems.append(f"{target['name']} imports {', '.join(undeclared)} without declaring it")
        if unused:
            problems.append(f"{target['name']} declares {', '.join(unused)} without importing it")
    problems += layer_problems(imports)
    for problem in problems:
        print(f"check-module-dependencies: {problem}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(self_test() if sys.argv[1:] == ["--self-test"] else main())
