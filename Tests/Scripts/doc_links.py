#!/usr/bin/env python3
"""Checks the documentation's relative links: every link and image of README.md, docs/*.md and the
DocC articles (Sources/<module>/<module>.docc/*.md) that names a file must name one that exists, and
every #anchor must be a heading of the page it points into (GitHub's anchors: the heading in lower
case, punctuation dropped, spaces as hyphens). An image in a DocC article names a file of its
catalog's Resources folder. Links to web addresses, and <doc:...> and ``symbol`` links (DocC checks
those: `make docs`), are not checked here.

Usage: python3 Tests/Scripts/doc_links.py [REPOSITORY]   (exit status 1 when a link is broken)
"""
import glob
import os
import re
import sys

LINK = re.compile(r'(!?)\[(?:[^\[\]]|\[[^\]]*\])*\]\(([^()\s]+)(?:\s+"[^"]*")?\)')


def pages(root):
    """The product documents: README, the changelog, docs/ (with its folders) and every DocC catalog."""
    found = [os.path.join(root, 'README.md'), os.path.join(root, 'CHANGELOG.md')]
    found += sorted(glob.glob(os.path.join(root, 'docs', '**', '*.md'), recursive=True))
    found += sorted(glob.glob(os.path.join(root, 'Sources', '*', '*.docc', '*.md')))
    return [page for page in found if os.path.isfile(page)]


def prose(text):
    """The page without its fenced code blocks and inline code spans."""
    lines, fenced = [], False
    for line in text.split('\n'):
        if line.lstrip().startswith('```'):
            fenced = not fenced
            lines.append('')
        else:
            lines.append('' if fenced else re.sub(r'`[^`]*`', '', line))
    return lines


def anchors(path):
    """The anchors of a Markdown file's headings, as GitHub makes them."""
    result, seen = set(), {}
    for line in prose(open(path, encoding='utf-8').read()):
        heading = re.match(r'#{1,6}\s+(.*?)\s*#*\s*$', line)
        if not heading:
            continue
        slug = heading.group(1).strip().lower()
        slug = re.sub(r'[^\w\- ]', '', slug).replace(' ', '-')
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        result.add(slug if count == 0 else f'{slug}-{count}')
    return result


def anchors_with_code(path):
    """Headings may hold code spans: take the raw headings too, code markers dropped."""
    result = set()
    for line in open(path, encoding='utf-8').read().split('\n'):
        heading = re.match(r'#{1,6}\s+(.*?)\s*#*\s*$', line)
        if heading:
            slug = heading.group(1).replace('`', '').strip().lower()
            result.add(re.sub(r'[^\w\- ]', '', slug).replace(' ', '-'))
    return result


def check(root):
    problems = []
    for page in pages(root):
        folder = os.path.dirname(page)
        catalog = folder if folder.endswith('.docc') else None
        text = open(page, encoding='utf-8').read()
        # Code spans may hold headings' words: recompute from the raw text for the anchors.
        for number, line in enumerate(prose(text), start=1):
            for image, target in ((m.group(1), m.group(2)) for m in LINK.finditer(line)):
                if re.match(r'[a-z][a-z0-9+.-]*:', target) or target.startswith('<'):
                    continue
                where = f'{os.path.relpath(page, root)}:{number}: {target}'
                path, _, anchor = target.partition('#')
                if image and catalog and '/' not in path:
                    if not glob.glob(os.path.join(catalog, 'Resources', '**', path), recursive=True):
                        problems.append(f'{where}: no such file in {os.path.relpath(catalog, root)}/Resources')
                    continue
                file = os.path.normpath(os.path.join(folder, path)) if path else page
                if not os.path.exists(file):
                    problems.append(f'{where}: no such file')
                    continue
                if anchor:
                    if not file.endswith('.md'):
                        problems.append(f'{where}: an anchor into a file that is not Markdown')
                    elif anchor not in anchors(file) | anchors_with_code(file):
                        problems.append(f'{where}: no heading #{anchor} in {os.path.relpath(file, root)}')
    return problems


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else '.')
    problems = check(root)
    for problem in problems:
        print(problem)
    checked = len(pages(root))
    print(f'{checked} pages, {len(problems)} broken links' if problems else f'{checked} pages: every relative link resolves')
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
