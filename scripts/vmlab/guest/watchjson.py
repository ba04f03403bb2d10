#!/usr/bin/python3
"""Reads `reach watch --json` and `reach status --json` output for the vmlab suites.

  watchjson.py match FILE FROM IFACE TYPE EXPENSIVE [TIMEOUT_S]
      Looks at the watch lines from line FROM (0-based) on. Exit 0 when the latest line listing
      IFACE shows TYPE ('*': any) and EXPENSIVE (true/false); 1 otherwise. Prints what it saw:
      "type=T expensive=E first=T/E evidence=[...]" (first: the line where IFACE first appeared).
  watchjson.py gone FILE FROM IFACE [TIMEOUT_S]
      Exit 0 when a line from FROM on lacks IFACE and no later line lists it again.
  With TIMEOUT_S, match and gone wait that long for new lines (one python start, not one per poll:
  starting python costs a second under TCG).
  watchjson.py status IFACE TYPE EXPENSIVE
      The same check as match on one `reach status --json` object read from stdin.
"""
import json
import sys
import time


def paths(file, start):
    """Complete JSON lines from line `start` on (a line still being written is skipped)."""
    with open(file) as stream:
        lines = stream.read().splitlines()[int(start):]
    for line in lines:
        try:
            yield json.loads(line)
        except ValueError:
            pass


def find(path, name):
    return next((i for i in path.get("interfaces", []) if i.get("name") == name), None)


def describe(latest, first):
    return (f"type={latest['type']} expensive={str(latest['expensive']).lower()}"
            f" first={first['type']}/{str(first['expensive']).lower()} evidence={json.dumps(latest['evidence'])}")


def matches(interface, kind, expensive):
    return (kind == "*" or interface["type"] == kind) and str(interface["expensive"]).lower() == expensive


def match(file, start, name, kind, expensive):
    seen = [i for i in (find(p, name) for p in paths(file, start)) if i]
    if not seen:
        return False, f"{name} not in any watch line yet"
    return matches(seen[-1], kind, expensive), describe(seen[-1], seen[0])


def gone(file, start, name):
    listed = [find(p, name) is not None for p in paths(file, start)]
    return bool(listed) and not listed[-1], f"{name} still listed" if listed else "no new watch line"


def poll(check, args, timeout):
    deadline = time.monotonic() + timeout
    while True:
        passed, text = check(*args)
        if passed or time.monotonic() >= deadline:
            print(text)
            return 0 if passed else 1
        time.sleep(0.1)


def main(argv):
    verb = argv[1]
    if verb in ("match", "gone"):
        args, timeout = (argv[2:7], argv[7:]) if verb == "match" else (argv[2:5], argv[5:])
        return poll(match if verb == "match" else gone, args, float(timeout[0]) if timeout else 0)
    if verb == "status":
        _, _, name, kind, expensive = argv
        interface = find(json.load(sys.stdin), name)
        if not interface:
            print(f"{name} not in reach status --json")
            return 1
        print(describe(interface, interface))
        return 0 if matches(interface, kind, expensive) else 1
    print(__doc__, file=sys.stderr)
    return 64


if __name__ == "__main__":
    sys.exit(main(sys.argv))
