#!/usr/bin/env python3
"""Mutation testing (`make mutate`): does a test fail for each plausible bug?

Each mutant of the mutants file replaces one exact piece of source (a shader line, a colour
constant, a condition) with a plausible bug. On a clone of the committed HEAD, for each mutant in
turn: apply it, rebuild the test bundle and `elimage`, and run the tiers of tests, in order, until
one fails. A mutant no tier kills *survived*: the tests let that bug through. A mutant that does
not build is reported apart (it tests nothing). The clone is restored after every mutant.

Usage: mutate.py --mutants Tests/Mutation/mutants.json --work .build-mutate [--report out/mutate.json]
                 [--only ID,ID] [--tier NAME]   (NAME: one tier alone, e.g. "reference outputs")
"""
import argparse
import json
import os
import subprocess
import sys
import time

# The tests that guard colour conversion and packing, cheapest first: a mutant is killed by the
# first tier in which a test fails.
TIERS = [
    ("colour and packing suites",
     "YUVToRGBTests|RGBToYUVTests|ChromaSitingTests|ChromaDownsamplingTests|FusedConversionTests"
     "|HighDepthTests|MonochromePackTests|PixelFormatUploadTests|GrayscaleTests|DeferredPassTests"),
    ("reference outputs", "ReferenceOutputTests"),
    ("files and cameras",
     "Y4MTests|Y4MSitingRoundTripTests|HighDepthToolTests|CameraColorTests|VideoEncoderTests|\\.ToolTests/"),
]
TEST_TIMEOUT = 900  # seconds a tier may take before the mutant counts as killed (a hang)


def run(command, cwd, timeout=None, environment=None):
    """Runs `command` in `cwd`; returns (exit status, the last lines of its output)."""
    env = dict(os.environ, **(environment or {}))
    try:
        done = subprocess.run(command, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              timeout=timeout, env=env, text=True, errors="replace")
        return done.returncode, done.stdout[-3000:]
    except subprocess.TimeoutExpired as expired:
        output = expired.stdout or ""
        if isinstance(output, bytes):
            output = output.decode(errors="replace")
        return 124, output[-3000:]


def build(tree):
    for product in ("ELImagePackageTests", "elimage"):
        status, output = run(["swift", "build", "--product", product], tree)
        if status != 0:
            return False, output
    return True, ""


def run_tiers(tree, tiers):
    """The name of the first tier in which a test failed, or None when all passed."""
    for name, pattern in tiers:
        status, _ = run(["swift", "test", "--skip-build", "--filter", pattern], tree, timeout=TEST_TIMEOUT,
                        environment={"ELIMAGE_REFERENCE_RENDERERS": "llvmpipe",
                                     "SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH": "6"})
        if status != 0:
            return name
    return None


def prepare(repository, tree):
    """A clone of the repository's HEAD in `tree` (made once, then reset to HEAD), built."""
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=repository, stdout=subprocess.PIPE,
                          text=True, check=True).stdout.strip()
    if not os.path.isdir(os.path.join(tree, ".git")):
        subprocess.run(["git", "clone", "--quiet", repository, tree], check=True)
    subprocess.run(["git", "fetch", "--quiet", repository, head], cwd=tree, check=True)
    subprocess.run(["git", "reset", "--quiet", "--hard", head], cwd=tree, check=True)
    return head


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mutants", required=True)
    parser.add_argument("--work", required=True, help="folder for the clone (kept between runs)")
    parser.add_argument("--report", help="JSON report to write")
    parser.add_argument("--only", help="comma-separated mutant ids")
    parser.add_argument("--tier", help="run this tier alone: how many mutants it catches by itself")
    arguments = parser.parse_args()
    tiers = [tier for tier in TIERS if arguments.tier in (None, tier[0])]
    if not tiers:
        sys.exit(f"mutate: no tier '{arguments.tier}'; the tiers: " + ", ".join(name for name, _ in TIERS))

    repository = os.getcwd()
    with open(arguments.mutants) as file:
        mutants = json.load(file)
    if arguments.only:
        wanted = set(arguments.only.split(","))
        mutants = [mutant for mutant in mutants if mutant["id"] in wanted]
    tree = os.path.abspath(os.path.join(arguments.work, "tree"))
    os.makedirs(arguments.work, exist_ok=True)
    head = prepare(repository, tree)
    print(f"mutate: {len(mutants)} mutants on {head[:12]}, in {tree}", flush=True)

    # Every mutant's piece of source must be there exactly once, before anything is built.
    for mutant in mutants:
        with open(os.path.join(tree, mutant["file"])) as file:
            count = file.read().count(mutant["original"])
        if count != 1:
            sys.exit(f"mutate: {mutant['id']}: its original text occurs {count} times in {mutant['file']}, "
                     "not once: correct Tests/Mutation/mutants.json")

    built, output = build(tree)
    if not built:
        sys.exit(f"mutate: HEAD does not build in {tree}:\n{output}")
    killer = run_tiers(tree, tiers)
    if killer is not None:
        sys.exit(f"mutate: the tests fail without any mutant ({killer}): fix them first")

    results = []
    for number, mutant in enumerate(mutants, 1):
        path = os.path.join(tree, mutant["file"])
        with open(path) as file:
            source = file.read()
        started = time.monotonic()
        try:
            with open(path, "w") as file:
                file.write(source.replace(mutant["original"], mutant["mutated"], 1))
            built, output = build(tree)
            if not built:
                outcome, detail = "does not build", output.strip().splitlines()[-1:]
            else:
                killer = run_tiers(tree, tiers)
                outcome, detail = ("killed", [killer]) if killer else ("SURVIVED", [])
        finally:
            with open(path, "w") as file:
                file.write(source)
        seconds = time.monotonic() - started
        results.append({"id": mutant["id"], "area": mutant["area"], "file": mutant["file"], "why": mutant["why"],
                        "outcome": outcome, "by": detail[0] if detail else None, "seconds": round(seconds)})
        print(f"[{number}/{len(mutants)}] {mutant['id']} ({mutant['area']}): {outcome}"
              + (f" by {detail[0]}" if detail else "") + f" ({seconds:.0f} s)", flush=True)

    built, _ = build(tree)  # leaves the clone built as HEAD
    viable = [result for result in results if result["outcome"] != "does not build"]
    survivors = [result for result in viable if result["outcome"] == "SURVIVED"]
    print(f"mutate: {len(survivors)} of {len(viable)} mutants survived"
          + (f" ({100 * len(survivors) / len(viable):.0f} %)" if viable else "")
          + f"; {len(results) - len(viable)} did not build")
    for area in sorted({result["area"] for result in viable}):
        in_area = [result for result in viable if result["area"] == area]
        alive = [result["id"] for result in in_area if result["outcome"] == "SURVIVED"]
        print(f"  {area}: {len(alive)} of {len(in_area)} survived" + (f": {', '.join(alive)}" if alive else ""))
    if arguments.report:
        os.makedirs(os.path.dirname(os.path.abspath(arguments.report)), exist_ok=True)
        with open(arguments.report, "w") as file:
            json.dump({"commit": head, "results": results}, file, indent=2)
    sys.exit(1 if survivors else 0)


if __name__ == "__main__":
    main()
