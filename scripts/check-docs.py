#!/usr/bin/env python3
"""Lists public declarations without a doc comment in the library modules (Reachability,
ReachabilityTransfers, and ReachabilityCore, which both re-export); exits 1 if there is any.

A declaration counts as documented when a `///` comment (or a `/** */` block) ends right
above it, attributes such as `@discardableResult` aside. Witnesses of standard protocol
requirements (`description`, `==`, `hash(into:)`, `next()`, `makeAsyncIterator()`, `Element`,
`AsyncIterator`) inherit the protocol's documentation and are skipped; so are enum cases of a
documented enum written on one line with others.
"""
import os, re, sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODULES = ["ReachabilityCore", "Reachability", "ReachabilityTransfers"]
DECLARATION = re.compile(
    r"^\s*(?:@\w+(?:\([^)]*\))?\s+)*(?:public|open)\s+(?:(?:static|final|convenience|nonisolated|mutating|override|required|indirect)\s+)*"
    r"(func|var|let|init|struct|class|enum|protocol|actor|typealias|case|subscript)\b\s*([^\s(:<={]*)")
WITNESSES = {"description", "==", "<", "hash", "next", "makeAsyncIterator", "Element", "AsyncIterator", "hashValue",
             "debugDescription", "errorDescription", "encode", "rawValue"}


def undocumented(path):
    lines = open(path).read().split("\n")
    for index, line in enumerate(lines):
        match = DECLARATION.match(line)
        if not match:
            continue
        kind, name = match.groups()
        if name.rstrip("?!") in WITNESSES or (kind == "init" and "from decoder" in line):
            continue
        above = index - 1
        while above >= 0 and re.match(r"^\s*@\w+", lines[above]):
            above -= 1
        previous = lines[above].strip() if above >= 0 else ""
        if not (previous.startswith("///") or previous.endswith("*/")):
            yield index + 1, line.strip()


def main():
    missing = []
    for module in MODULES:
        for directory, _, files in os.walk(os.path.join(ROOT, "Sources", module)):
            for name in sorted(files):
                if name.endswith(".swift"):
                    path = os.path.join(directory, name)
                    missing += [(os.path.relpath(path, ROOT), number, text) for number, text in undocumented(path)]
    for path, number, text in missing:
        print(f"{path}:{number}: undocumented: {text}")
    print(f"check-docs: {len(missing)} public declarations without a doc comment", file=sys.stderr)
    sys.exit(1 if missing else 0)


if __name__ == "__main__":
    main()
