#!/usr/bin/env python3
"""layers.py [ARCHITECTURE.md]: checks that the folders of each layered module only name types of
folders below them.

docs/ARCHITECTURE.md declares, for each module, its rooms from the bottom up, one line each:

    layers Sources/ELImage: Errors < Threads < Color < GL < ... < Sources, Filters, Sinks

`<` separates layers; rooms in one layer, separated by commas, are siblings that must not name
each other. A room is a first-level folder of the module. A file in room X "names" room Y when it
mentions a type, protocol or type alias declared at the top level of a file in Y (a nested type is
named through its outer type; a name declared in several rooms counts as naming all of them). Every
such arrow must point to a lower layer.
Prints each arrow that does not, with the file and the name, and exits 1; prints the layers and
"acyclic" otherwise."""
import os, re, sys
from collections import defaultdict

DECLARATION = re.compile(
    r'^(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|package|internal|fileprivate|private|open|final|indirect|nonisolated)\s+)*'
    r'(?:class|struct|enum|protocol|actor|typealias)\s+([A-Z]\w*)', re.M)
COMMENTS_AND_STRINGS = re.compile(r'//[^\n]*|/\*.*?\*/|"""(?:.|\n)*?"""|"(?:\\.|[^"\\\n])*"', re.S)
LAYERS_LINE = re.compile(r'^\s*layers\s+(\S+):\s*(.+?)\s*$', re.M)


def rooms_of(module):
    """Swift files by room (first-level folder; '.' for files at the module's root)."""
    files = defaultdict(list)
    for folder, _, names in os.walk(module):
        relative = os.path.relpath(folder, module)
        room = '.' if relative == '.' else relative.split(os.sep)[0]
        files[room] += [os.path.join(folder, name) for name in names if name.endswith('.swift')]
    return {room: paths for room, paths in files.items() if paths}


def arrows(module):
    """(from room, to room, file, name) for every name a file uses that another room declares."""
    texts, owners = {}, defaultdict(set)
    for room, paths in rooms_of(module).items():
        for path in paths:
            with open(path, encoding='utf-8', errors='replace') as file:
                text = COMMENTS_AND_STRINGS.sub(' ', file.read())
            texts[path] = (room, text)
            for name in DECLARATION.findall(text):
                owners[name].add(room)
    for path, (room, text) in sorted(texts.items()):
        for name in sorted(set(re.findall(r'\b[A-Z]\w*\b', text))):
            for owner in sorted(owners.get(name, ())):
                if owner != room:
                    yield room, owner, os.path.relpath(path, module), name


def check(module, declared):
    layers = [[room.strip() for room in layer.split(',')] for layer in declared.split('<')]
    level = {room: index for index, layer in enumerate(layers) for room in layer}
    found = set(rooms_of(module)) - {'.'}
    problems = [f"{module}/{room}: a folder the layers do not name; add it to docs/ARCHITECTURE.md"
                for room in sorted(found - set(level))]
    problems += [f"{module}: the layers name {room}, which is not a folder with Swift files"
                 for room in sorted(set(level) - found)]
    for source, target, path, name in arrows(module):
        if source == '.' or target not in level or source not in level:
            continue
        if level[target] >= level[source]:
            where = "the same layer" if level[target] == level[source] else "a higher layer"
            problems.append(f"{module}/{path} ({source}) names {name}, declared in {target}: {where}")
    return layers, problems


def self_test():
    """The check on a made-up module: a downward arrow passes, an upward one and one between
    siblings fail, a nested type counts through its outer type, comments and strings do not count."""
    import tempfile
    files = {
        'Low/Base.swift': 'public struct Base {\n    struct Options {}\n}\n',
        'Low/Wrong.swift': 'func f(_ x: Top) {}  // Left\nlet s = "Right"\n',
        'Middle/Use.swift': 'struct Use { let base: Base; let options: Base.Options }\n',
        'Left/Top.swift': 'final class Top { struct Options {} }\nfunc g(_ r: Right) {}\n',
        'Right/Right.swift': 'struct Right { let options: Options }\n',
    }
    with tempfile.TemporaryDirectory() as module:
        for path, text in files.items():
            os.makedirs(os.path.join(module, os.path.dirname(path)), exist_ok=True)
            with open(os.path.join(module, path), 'w', encoding='utf-8') as file:
                file.write(text)
        _, problems = check(module, 'Low < Middle < Left, Right')
    expected = [f"{module}/Low/Wrong.swift (Low) names Top, declared in Left: a higher layer",
                f"{module}/Left/Top.swift (Left) names Right, declared in Right: the same layer"]
    if sorted(problems) != sorted(expected):
        print("layers.py self-test failed; found:\n  " + "\n  ".join(problems), file=sys.stderr)
        return 1
    return 0


def main():
    if self_test() != 0:
        return 1
    architecture = sys.argv[1] if len(sys.argv) > 1 else 'docs/ARCHITECTURE.md'
    with open(architecture, encoding='utf-8') as file:
        declarations = LAYERS_LINE.findall(file.read())
    if not declarations:
        print(f"{architecture}: no 'layers MODULE: A < B < ...' line found", file=sys.stderr)
        return 1
    failed = False
    for module, declared in declarations:
        layers, problems = check(module, declared)
        if problems:
            failed = True
            print(f"{module}: {len(problems)} arrow(s) against the layers:")
            print('\n'.join(f"  {problem}" for problem in problems))
        else:
            print(f"{module}: acyclic ({' < '.join(', '.join(layer) for layer in layers)})")
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
