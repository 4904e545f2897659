#!/usr/bin/env python3
"""Product documents speak of the product: this check fails on the marks of development history in
README.md, CHANGELOG.md, docs/ and the DocC catalogs: commit hashes, issue and pull-request
references, and notes about a development machine.

    docs_lint.py [ROOT]     (ROOT: the repository, default .)

A SHA-256 (64 hex digits, as a model's checksum) is not a commit hash; hex inside a URL or a
code span is left alone only when it is 64 digits long.
"""
import os
import re
import sys

from doc_links import pages

COMMIT = re.compile(r"(?<![0-9A-Za-z_./-])([0-9a-f]{7,40})(?![0-9A-Za-z_])")
ISSUE = re.compile(r"\b(?:issue|issues|pull request|PR)\s*#?\d+\b|(?<![\w&/#])(?<!\]\()#\d+\b(?!-)|\b(?:the|this|that) issue's\b",
                   re.IGNORECASE)
MACHINE = re.compile(r"\b(?:the|this|our) development machine\b|\bthis machine\b", re.IGNORECASE)


def problems(path, text):
    for number, line in enumerate(text.splitlines(), 1):
        for match in COMMIT.finditer(line):
            word = match.group(1)
            if re.search(r"[a-f]", word) and re.search(r"[0-9]", word):
                yield f"{path}:{number}: '{word}' reads as a commit hash"
        for match in ISSUE.finditer(line):
            yield f"{path}:{number}: '{match.group(0)}' reads as an issue or pull-request reference"
        for match in MACHINE.finditer(line):
            yield f"{path}:{number}: '{match.group(0)}' is a note about a development machine"


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "."
    found = []
    for page in pages(root):
        with open(page, encoding="utf-8") as file:
            found += problems(os.path.relpath(page, root), file.read())
    if found:
        print("\n".join(found), file=sys.stderr)
        sys.exit(f"docs_lint: {len(found)} marks of development history in the product documents "
                 "(history belongs in git and release notes, not in README, docs/ or DocC)")


if __name__ == "__main__":
    main()
