#!/usr/bin/env python3
"""The tables of docs/BENCHMARKS.md, made from `elimage-bench --json-file` output.

    bench_report.py RESULTS.json                  prints the tables (Markdown)
    bench_report.py RESULTS.json --into DOC.md    replaces what DOC.md holds between its
                                                  "bench-report: begin" and "end" markers
    bench_report.py RESULTS.json --check DOC.md   fails when DOC.md's tables are not these

Each table's heading names the day, the machine and the renderer of the run it comes from, so a
table is never read apart from where it was measured.
"""
import argparse
import json
import sys

BEGIN = "<!-- bench-report: begin (made by `make bench-report` from docs/benchmarks/results.json; do not edit) -->"
END = "<!-- bench-report: end -->"


def number(value):
    return f"{value:.1f}" if value >= 10 else f"{value:.2f}"


def heading(report):
    machine = report["machine"]
    load = machine.get("loadAverage")
    busy = f", load average {load:.1f} when it began" if load is not None else ""
    return (f"Measured {report['date']} on {machine['processor']} ({machine['cores']} cores, "
            f"{machine['memoryGiB']} GiB{busy}), {machine['system']}; renderer {report['renderer']} "
            f"(EGL {report['platform']})")


def pipelines(report):
    results = report.get("results") or []
    if not results:
        return []
    lines = [f"### Pipelines ({report['frames']} frames a row)", "", heading(report) + ".", "",
             "| pipeline | size | p50 ms | p99 ms | ratio to the floor | note |",
             "|---|---|---|---|---|---|"]
    for result in results:
        ratio = result.get("ratioToBare")
        latency = result["latency"]
        lines.append(f"| {result['name']} | {result['size']} | {number(latency['p50'])} | "
                     f"{number(latency['p99'])} | {f'**{ratio:.2f}×**' if ratio is not None else ''} | "
                     f"{result.get('note') or ''} |")
    startup = report.get("startup")
    if startup:
        lines += ["", f"Time to first frame: render context {startup['contextMilliseconds']:.1f} ms, then the "
                      f"first grayscale frame {startup['firstFrameMilliseconds']:.1f} ms (shader compilation); "
                      f"the floor's first frame {startup['floorFirstFrameMilliseconds']:.1f} ms."]
    if report.get("gstreamer"):
        lines += ["", f"GStreamer was not measured: {report['gstreamer']}"]
    return lines


def matrix(report):
    matrix = report.get("matrix")
    if not matrix or not matrix["cells"]:
        return []
    columns = []   # (output, size) in the order met
    rows = {}      # filter -> {"floor": name, (output, size): cell}
    for cell in matrix["cells"]:
        column = (cell["output"], cell["framework"]["size"])
        if column not in columns:
            columns.append(column)
        row = rows.setdefault(cell["filter"], {"floor": cell["floor"]["name"].split(" ")[0]})
        row[column] = cell
    title = " | ".join(f"{output.upper()} {size}" for output, size in columns)
    lines = [f"### Every filter into every output through `elimage run`", "",
             heading(report) + f"; (t({matrix['frames']} frames) − t({matrix['shortFrames']})) / "
             f"{matrix['frames'] - matrix['shortFrames']}, p50 of {matrix['repeats']} repeats, the floor "
             f"interleaved in the same run" + (f", both writing to {matrix['outputs']}" if matrix.get("outputs") else "")
             + "; ms a frame, framework / floor = ratio.", "",
             f"| filter | floor | {title} |", "|---|---|" + "---|" * len(columns)]
    for name, row in rows.items():
        cells = []
        for column in columns:
            cell = row.get(column)
            if cell is None:
                cells.append("")
                continue
            framework = cell["framework"]["latency"]["p50"]
            floor = cell["floor"]["latency"]["p50"]
            cells.append(f"{number(framework)} / {number(floor)} = **{framework / floor:.2f}×**")
        lines.append(f"| {name} | {row['floor']} | " + " | ".join(cells) + " |")
    within = sum(1 for cell in matrix["cells"]
                 if cell["framework"]["latency"]["p50"] <= 1.25 * cell["floor"]["latency"]["p50"])
    lines += ["", f"{within} of {len(matrix['cells'])} cells within 1.25× of their floor; "
                  f"the matrix took {matrix['wallSeconds']:.0f} s."]
    return lines


def tables(report):
    parts = [section for section in (pipelines(report), matrix(report)) if section]
    if not parts:
        sys.exit("bench_report: the results hold neither pipelines nor a matrix")
    return "\n\n".join("\n".join(part) for part in parts) + "\n"


def replaced(document, text, path):
    if document.count(BEGIN) != 1 or document.count(END) != 1 or document.index(BEGIN) > document.index(END):
        sys.exit(f"bench_report: {path} needs one begin marker and one end marker after it:\n{BEGIN}\n{END}")
    start = document.index(BEGIN) + len(BEGIN)
    return document[:start] + "\n\n" + text + "\n" + document[document.index(END):]


def main():
    parser = argparse.ArgumentParser(description="Markdown tables from elimage-bench JSON")
    parser.add_argument("results")
    parser.add_argument("--into", help="a Markdown file whose marked section is replaced")
    parser.add_argument("--check", help="a Markdown file whose marked section must equal the tables")
    arguments = parser.parse_args()
    with open(arguments.results, encoding="utf-8") as file:
        report = json.load(file)
    text = tables(report)
    target = arguments.into or arguments.check
    if not target:
        sys.stdout.write(text)
        return
    with open(target, encoding="utf-8") as file:
        document = file.read()
    updated = replaced(document, text, target)
    if arguments.check:
        if updated != document:
            sys.exit(f"bench_report: the tables in {target} are not those of {arguments.results}; "
                     "run `make bench-report` (or edit the prose outside the markers only)")
        return
    temporary = target + ".tmp"
    with open(temporary, "w", encoding="utf-8") as file:
        file.write(updated)
    import os
    os.replace(temporary, target)


if __name__ == "__main__":
    main()
