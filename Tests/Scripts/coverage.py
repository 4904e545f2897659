#!/usr/bin/env python3
"""Line coverage per module (`make coverage`, and CI's `make test COVERAGE=1`).

Merges the raw profiles that every instrumented process wrote during the tests (the test bundle,
and the programs it ran: `elimage`, the examples) and prints, for each module of Sources/, the
lines the tests ran, with llvm-cov from the Swift toolchain.

Usage: coverage.py PROFILE_FOLDER BIN_FOLDER [--json FILE]
"""
import argparse
import glob
import json
import os
import shutil
import subprocess
import sys


def toolchain_tool(name):
    """`name` beside the `swift` driver (the toolchain's own LLVM), else on PATH."""
    swift = shutil.which("swift")
    if swift:
        candidate = os.path.join(os.path.dirname(os.path.realpath(swift)), name)
        if os.path.exists(candidate):
            return candidate
    found = shutil.which(name)
    if not found:
        sys.exit(f"coverage: {name} not found beside swift or on PATH")
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("profiles", help="folder of .profraw files (LLVM_PROFILE_FILE's)")
    parser.add_argument("bin", help="the build's bin folder (swift build --show-bin-path)")
    parser.add_argument("--json", help="write the per-module figures here too")
    arguments = parser.parse_args()

    raw = glob.glob(os.path.join(arguments.profiles, "*.profraw"))
    if not raw:
        sys.exit(f"coverage: no profiles in {arguments.profiles}: was the build made with --enable-code-coverage "
                 "and were the tests run with LLVM_PROFILE_FILE set?")
    merged = os.path.join(arguments.profiles, "merged.profdata")
    subprocess.run([toolchain_tool("llvm-profdata"), "merge", "-sparse", "-o", merged] + raw, check=True)

    bundle = os.path.join(arguments.bin, "ELImagePackageTests.xctest")
    programs = [path for path in glob.glob(os.path.join(arguments.bin, "*"))
                if os.path.isfile(path) and os.access(path, os.X_OK) and "." not in os.path.basename(path)]
    objects = [bundle] + [argument for program in sorted(programs) for argument in ("-object", program)]
    exported = subprocess.run([toolchain_tool("llvm-cov"), "export", "-summary-only", "-instr-profile", merged]
                              + objects, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, check=True, text=True)
    files = json.loads(exported.stdout)["data"][0]["files"]

    sources = os.path.join(os.getcwd(), "Sources") + os.sep
    modules = {}
    for entry in files:
        name = entry["filename"]
        if not name.startswith(sources):
            continue
        module = name[len(sources):].split(os.sep)[0]
        lines = entry["summary"]["lines"]
        total = modules.setdefault(module, [0, 0])
        total[0] += lines["covered"]
        total[1] += lines["count"]

    width = max(len(module) for module in modules) if modules else 10
    print(f"line coverage by module (the test bundle and {len(programs)} programs it runs)")
    covered_all = sum(value[0] for value in modules.values())
    count_all = sum(value[1] for value in modules.values())
    for module, (covered, count) in sorted(modules.items(), key=lambda item: -item[1][1]):
        share = 100 * covered / count if count else 0
        print(f"  {module:<{width}}  {share:5.1f} %  {covered:>6} of {count:>6} lines")
    print(f"  {'all':<{width}}  {100 * covered_all / max(1, count_all):5.1f} %  {covered_all:>6} of {count_all:>6} lines")
    if arguments.json:
        with open(arguments.json, "w") as file:
            json.dump({module: {"covered": covered, "lines": count} for module, (covered, count) in modules.items()},
                      file, indent=2)


if __name__ == "__main__":
    main()
