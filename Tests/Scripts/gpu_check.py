#!/usr/bin/env python3
"""`make gpu-check`: the renderer-sensitive tests and the quick benchmark on a GPU, in one table.

Builds the tests (debug) and `elimage` with `elimage-bench` (release), then, on the EGL platform
named by ELIMAGE_EGL_PLATFORM (`device` unless set: the GPU without a display server):
  1. the suites given with --suites (the Makefile's RENDERER_SUITES: colour, packs, the fused
     line, pictures, 10-bit) and every reference output, checked on the GPU's own renderer
     (ELIMAGE_REFERENCE_RENDERERS=native: its outputs must stay within each record's floor, as
     Mesa's two rasterizers do);
  2. `elimage-bench --quick`: the in-process pipelines against their floors and the matrix
     (every filter x output through the CLI).
Prints one table: the renderer, each suite's tests passed and failed, each benchmark row's p50
and ratio to its floor. Exits 1 when a build or a test failed or the benchmark did not finish.
"""

import argparse
import json
import os
import subprocess
import sys
import time
import xml.etree.ElementTree as ElementTree

def run(command, environment, log, timeout):
    """Runs `command`, its output appended to `log`; returns (status, seconds)."""
    start = time.monotonic()
    with open(log, "a") as out:
        out.write(f"\n$ {' '.join(command)}\n")
        out.flush()
        try:
            status = subprocess.run(command, env=environment, stdout=out, stderr=subprocess.STDOUT,
                                    timeout=timeout).returncode
        except subprocess.TimeoutExpired:
            out.write(f"timed out after {timeout} s\n")
            status = 124
    return status, time.monotonic() - start


def suite_results(xunit):
    """{suite: (passed, failed)} from Swift Testing's JUnit XML."""
    results = {}
    if not os.path.exists(xunit):
        return results
    for case in ElementTree.parse(xunit).getroot().iter("testcase"):
        suite = case.get("classname", "?").split(".")[-1]
        passed, failed = results.get(suite, (0, 0))
        if case.find("failure") is not None or case.find("error") is not None:
            failed += 1
        else:
            passed += 1
        results[suite] = (passed, failed)
    return results


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--swift", default="swift")
    parser.add_argument("--out", default="out")
    parser.add_argument("--suites", required=True,
                        help="the suites to run, as a --filter pattern (the Makefile's RENDERER_SUITES and the reference outputs)")
    arguments = parser.parse_args()
    os.makedirs(arguments.out, exist_ok=True)
    log = os.path.join(arguments.out, "gpu-check.log")
    xunit = os.path.join(arguments.out, "gpu-check.xml")
    bench_json = os.path.join(arguments.out, "gpu-check-bench.json")
    for stale in (log, xunit, bench_json):
        if os.path.exists(stale):
            os.remove(stale)
    environment = dict(os.environ)
    environment.setdefault("ELIMAGE_EGL_PLATFORM", "device")
    environment["ELIMAGE_REFERENCE_RENDERERS"] = "native"
    swift = arguments.swift
    suites = arguments.suites.split("|")
    rows = []   # (check, result, figures)
    failed = False

    steps = [
        ("build: tests (debug)", [swift, "build", "--build-tests"]),
        ("build: elimage (release)", [swift, "build", "-c", "release", "--product", "elimage"]),
        ("build: elimage-bench (release)", [swift, "build", "-c", "release", "--product", "elimage-bench"]),
    ]
    for name, command in steps:
        status, seconds = run(command, os.environ, log, timeout=900)
        rows.append((name, "ok" if status == 0 else f"FAILED ({status})", f"{seconds:.0f} s"))
        if status != 0:
            failed = True
            break

    if not failed:
        command = [swift, "test", "--skip-build", "--filter", arguments.suites, "--xunit-output", xunit]
        status, seconds = run(command, environment, log, timeout=900)
        # Swift Testing writes its own file beside the name given.
        testing_xunit = xunit.replace(".xml", "-swift-testing.xml")
        results = suite_results(testing_xunit if os.path.exists(testing_xunit) else xunit)
        for suite in suites:
            passed, failures = results.get(suite, (0, 0))
            verdict = "no tests ran" if passed + failures == 0 else ("ok" if failures == 0 else "FAILED")
            rows.append((f"test: {suite}", verdict, f"{passed} passed, {failures} failed"))
            failed = failed or failures > 0 or passed == 0
        rows.append(("test run", "ok" if status == 0 else f"FAILED ({status})", f"{seconds:.0f} s"))
        failed = failed or status != 0

        bin_path = subprocess.run([swift, "build", "-c", "release", "--show-bin-path"], capture_output=True,
                                  text=True).stdout.strip()
        command = [os.path.join(bin_path, "elimage-bench"), "--quick", "--json-file", bench_json]
        status, seconds = run(command, environment, log, timeout=900)
        rows.append(("benchmark: elimage-bench --quick", "ok" if status == 0 else f"FAILED ({status})", f"{seconds:.0f} s"))
        failed = failed or status != 0
        if os.path.exists(bench_json):
            with open(bench_json) as file:
                report = json.load(file)
            rows.insert(0, ("renderer", report.get("renderer", "?"), f"EGL platform {report.get('platform', '?')}"))
            for result in report.get("results", []):
                ratio = result.get("ratioToBare")
                figures = f"p50 {result['latency']['p50']:.2f} ms, p99 {result['latency']['p99']:.2f} ms"
                rows.append((f"bench: {result['name']} {result['size']}", f"{ratio:.2f}x floor" if ratio else "-", figures))
            for cell in (report.get("matrix") or {}).get("cells", []):
                framework, floor = cell["framework"]["latency"]["p50"], cell["floor"]["latency"]["p50"]
                rows.append((f"matrix: {cell['filter']} -> {cell['output']}", f"{framework / floor:.2f}x floor",
                             f"{framework:.2f} / {floor:.2f} ms"))

    width = max(len(row[0]) for row in rows)
    result_width = max(len(row[1]) for row in rows)
    print(f"\n{'check'.ljust(width)}  {'result'.ljust(result_width)}  figures")
    for check, result, figures in rows:
        print(f"{check.ljust(width)}  {result.ljust(result_width)}  {figures}")
    print(f"\n{'FAILED' if failed else 'PASSED'}; the commands' output: {log}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
