#!/usr/bin/env python3
"""Lists public declarations without a doc comment in the library modules (Reachability,
ReachabilityTransfers, and ReachabilityCore, which both re-export); exits 1 if there is any.

A declaration counts as documented when a `///` comment (or a `/** */` block) ends right
above it, attributes such as `@discardableResult` aside. Besides declarations spelled `public`,
the cases of a public enum and the requirements of a public protocol are public too and are
checked. Witnesses of standard protocol requirements (`description`, `==`, `<`, `hash(into:)`,
`init(rawValue:)`, `init(from:)`, `next()`, `makeAsyncIterator()`, `Element`, `AsyncIterator`)
inherit the protocol's documentation and are skipped; so are enum cases of a documented enum
written on one line with others.
"""
import os, re, sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODULES = ["ReachabilityCore", "Reachability", "ReachabilityProcesses", "ReachabilityTransfers", "ReachabilityDaemon", "ReachabilitySystemd", "ReachabilityMetrics", "ReachabilityControl", "ReachabilityValidation"]
DECLARATION = re.compile(
    r"^\s*(?:@\w+(?:\([^)]*\))?\s+)*(?:public|open)\s+(?:(?:static|final|convenience|nonisolated|mutating|override|required|indirect)\s+)*"
    r"(func|var|let|init|struct|class|enum|protocol|actor|typealias|case|subscript)\b\s*"
    # An operator's name (`==`, `<`) or an identifier, which ends at `(`, `:`, `<`, `=` or `{`.
    r"([-=<>!+*/%&|^~]+|[^\s(:<={]*)")
# A type or extension opening a scope, for the enum cases and protocol requirements inside it.
SCOPE = re.compile(
    r"^\s*(?:@\w+(?:\([^)]*\))?\s+)*((?:public|open)\s+)?(?:(?:final|indirect)\s+)*"
    r"(enum|protocol|struct|class|actor|extension)\b")
REQUIREMENT = re.compile(
    r"^\s*(?:(?:static|mutating|nonmutating)\s+)*(func|var|init|subscript|associatedtype)\b\s*([^\s(:<={]*)")
WITNESSES = {"description", "==", "<", "hash", "next", "makeAsyncIterator", "Element", "AsyncIterator", "hashValue",
             "debugDescription", "errorDescription", "encode", "rawValue"}


def undocumented(path):
    lines = open(path).read().split("\n")
    for index, line in enumerate(lines):
        match = DECLARATION.match(line)
        if not match:
            continue
        kind, name = match.groups()
        if name.rstrip("?!") in WITNESSES or (kind == "init" and re.search(r"\((?:from decoder|rawValue):", line)):
            continue
        if not documented(lines, index):
            yield index + 1, line.strip()
    # Enum cases and protocol requirements are public without the keyword: found by scope.
    for index, scope, line in members(lines):
        if scope == "enum":
            code = without_strings(line).strip()
            # `case a, b, c` (a comma outside parentheses) is exempt, as said above.
            if code.startswith("case ") and "," not in outside_parentheses(code) and not documented(lines, index):
                yield index + 1, line.strip()
        elif scope == "protocol":
            match = REQUIREMENT.match(line)
            if match and match.group(2) not in WITNESSES and not documented(lines, index):
                yield index + 1, line.strip()


def documented(lines, index):
    """Whether a `///` comment or a `*/` ends right above line `index`, attributes aside."""
    above = index - 1
    while above >= 0 and re.match(r"^\s*@\w+", lines[above]):
        above -= 1
    previous = lines[above].strip() if above >= 0 else ""
    return previous.startswith("///") or previous.endswith("*/")


def without_strings(line):
    """`line` with its string literals emptied and its `//` comment removed."""
    return re.sub(r'"(?:\\.|[^"\\])*"', '""', line).split("//")[0]


def outside_parentheses(text):
    """`text` without what sits inside parentheses (a case's associated values)."""
    depth, out = 0, []
    for character in text:
        if character == "(":
            depth += 1
        elif character == ")":
            depth = max(0, depth - 1)
        elif depth == 0:
            out.append(character)
    return "".join(out)


def members(lines):
    """(index, scope, line) for each line directly in the body of a public enum or protocol."""
    scopes = []  # (kind, is public, brace depth outside its body)
    depth = 0
    for index, line in enumerate(lines):
        code = without_strings(line)
        if scopes and scopes[-1][1] and depth == scopes[-1][2] + 1 and scopes[-1][0] in ("enum", "protocol"):
            yield index, scopes[-1][0], line
        match = SCOPE.match(code)
        if match and "{" in code:
            scopes.append((match.group(2), bool(match.group(1)), depth))
        depth += code.count("{") - code.count("}")
        while scopes and depth <= scopes[-1][2]:
            scopes.pop()


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
