#!/usr/bin/env python3
"""Checks that every snippet in the examples appears verbatim in README.md.

An example marks a snippet with a line `// snippet: NAME` and ends it with `// end snippet`.
The README must hold a ```swift block whose lines, with their common indentation removed, equal
the snippet's lines likewise. Exits 1 naming each snippet that is missing or differs, so a
README snippet can never drift from code that compiles (the examples build with the package).
"""
import glob, os, re, sys, textwrap

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def snippets():
    for path in sorted(glob.glob(os.path.join(ROOT, "Sources/Examples/*/*.swift"))):
        name, lines = None, []
        with open(path) as source:
            for line in source:
                marker = re.match(r"\s*// snippet: (\S+)\s*$", line)
                if marker:
                    name, lines = marker.group(1), []
                elif re.match(r"\s*// end snippet\s*$", line):
                    if name is None:
                        sys.exit(f"{path}: `// end snippet` without a start")
                    yield path, name, textwrap.dedent("".join(lines)).strip("\n")
                    name = None
                elif name is not None:
                    lines.append(line)
        if name is not None:
            sys.exit(f"{path}: snippet {name} has no `// end snippet`")


def readme_blocks():
    text = open(os.path.join(ROOT, "README.md")).read()
    for match in re.finditer(r"^([ \t]*)```swift\n(.*?)^[ \t]*```", text, re.S | re.M):
        yield textwrap.dedent(match.group(2)).strip("\n")


def main():
    blocks = set(readme_blocks())
    found = list(snippets())
    missing = [(path, name) for path, name, body in found if body not in blocks]
    for path, name in missing:
        print(f"check-snippets: snippet '{name}' of {os.path.relpath(path, ROOT)} is not in README.md verbatim", file=sys.stderr)
    if not found:
        sys.exit("check-snippets: no snippets found")
    print(f"check-snippets: {len(found) - len(missing)} of {len(found)} snippets in README.md")
    sys.exit(1 if missing else 0)


if __name__ == "__main__":
    main()
