#!/usr/bin/python3
"""Checks `reach status --json` / `reach watch --json` output for the Wi-Fi suite.

  wifijson.py status IFACE CHECK...      one path on stdin
  wifijson.py watch FILE FROM IFACE CHECK...
      exit 0 when the path (for watch: the latest complete line from line FROM on) satisfies
      every CHECK; print what it saw. A CHECK is KEY=VALUE over these keys:
        ssid, bssid, associated (true/false), expensive (the interface's), path-expensive,
        status (the path's), identity-ssid, evidence~TEXT (an evidence line contains TEXT),
        running (true/false), frequency
  wifijson.py never FILE FROM KEY=VALUE   exit 1 when any line from FROM on has the path key
        (status or identity-ssid) equal to VALUE: "no unreachable moment".
  wifijson.py count FILE FROM             prints the number of complete lines from FROM on.
  wifijson.py dump FILE FROM IFACE        one line per path: time, status, IFACE's state and BSSID.
"""
import json
import sys


def lines(file, start):
    with open(file) as stream:
        for line in stream.read().splitlines()[int(start):]:
            try:
                yield json.loads(line)
            except ValueError:
                pass


def facts(path, name):
    interface = next((i for i in path.get("interfaces", []) if i.get("name") == name), None) or {}
    wifi = interface.get("wifi") or {}
    return {
        "ssid": wifi.get("ssid"), "bssid": wifi.get("bssid"), "associated": wifi.get("associated"),
        "frequency": wifi.get("frequencyMHz"), "expensive": interface.get("expensive"),
        "running": interface.get("running"), "path-expensive": path.get("expensive"), "status": path.get("status"),
        "identity-ssid": (path.get("identity") or {}).get("ssid"), "evidence": interface.get("evidence", []),
    }


def text(value):
    return str(value).lower() if isinstance(value, bool) else str(value)


def satisfied(seen, checks):
    for check in checks:
        if check.startswith("evidence~"):
            if not any(check[len("evidence~"):] in line for line in seen["evidence"]):
                return False
            continue
        key, _, value = check.partition("=")
        if text(seen.get(key)) != value:
            return False
    return True


def show(seen):
    shown = {k: v for k, v in seen.items() if k != "evidence"}
    return json.dumps(shown) + " evidence=" + json.dumps([e for e in seen["evidence"] if e.split("=")[0] in ("wifi", "beacon", "bssid", "dhcp", "override")])


def main(argv):
    verb = argv[1]
    if verb == "status":
        seen = facts(json.load(sys.stdin), argv[2])
        print(show(seen))
        return 0 if satisfied(seen, argv[3:]) else 1
    if verb == "watch":
        paths = list(lines(argv[2], argv[3]))
        if not paths:
            print("no watch line yet")
            return 1
        seen = facts(paths[-1], argv[4])
        print(show(seen))
        return 0 if satisfied(seen, argv[5:]) else 1
    if verb == "never":
        key, _, value = argv[4].partition("=")
        for path in lines(argv[2], argv[3]):
            got = path.get("status") if key == "status" else (path.get("identity") or {}).get("ssid")
            if text(got) == value:
                print(f"a line has {key}={value}")
                return 1
        return 0
    if verb == "dump":
        for path in lines(argv[2], argv[3]):
            seen = facts(path, argv[4])
            print(path.get("time"), seen["status"], "running=" + text(seen["running"]), "associated=" + text(seen["associated"]), seen["bssid"])
        return 0
    if verb == "count":
        print(len(list(lines(argv[2], argv[3]))))
        return 0
    print(__doc__, file=sys.stderr)
    return 64


if __name__ == "__main__":
    sys.exit(main(sys.argv))
