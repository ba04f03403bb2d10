#!/usr/bin/env python3
"""Start-up to first line, and idle memory, of `reach status` and `reach watch`.

Each command is started in a network namespace of its own (a veth uplink with a default route,
so `status` has a path to print) and timed from just before exec to the arrival of its first
line on a pipe; runs alternate between the binaries, so both see the same machine. `reach
watch` is then left idle 2 s and its VmRSS, RssAnon and RssFile read from /proc/PID/status.

    scripts/bench/startup.py [--reach BIN] [--baseline BIN] [--runs N]

--reach defaults to .build-release/release/reach (scripts/package-deb.sh builds it);
--baseline is an earlier build of reach to compare with (for example one built from an earlier
commit in a worktree). The peer is iproute2's `ip route show default`, a process that prints
the same fact with no runtime to start. Prints a table; writes
scripts/bench/results/startup-*.json. Needs root (namespaces); sends no traffic."""
import argparse, datetime, os, select, statistics, subprocess, sys, time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import uplink_namespace  # noqa: E402
from benchlib import git_state, status_kib, write_results  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
NAMESPACE = "reach-bench-startup"


def first_line(argv, keep=False):
    """Milliseconds from just before exec to the first line; the process if `keep`."""
    started = time.monotonic_ns()
    process = subprocess.Popen(["ip", "netns", "exec", NAMESPACE, *argv], stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
    ready, _, _ = select.select([process.stdout], [], [], 10)
    if not ready or not process.stdout.readline():
        process.kill()
        process.wait()
        sys.exit(f"startup: {' '.join(argv)} printed nothing within 10 s")
    elapsed = (time.monotonic_ns() - started) / 1e6
    if keep:
        return elapsed, process
    process.kill()
    process.wait()
    return elapsed, None


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--reach", default=os.path.join(ROOT, ".build-release/release/reach"))
    parser.add_argument("--baseline")
    parser.add_argument("--runs", type=int, default=30)
    options = parser.parse_args()
    if os.geteuid() != 0:
        sys.exit("startup: needs root (network namespaces)")
    binaries = {"reach (this tree)": options.reach}
    if options.baseline:
        binaries["reach (baseline)"] = options.baseline
    started = datetime.datetime.now(datetime.timezone.utc)
    uplink_namespace.create(NAMESPACE, "e0", "10.77.0.2")
    try:
        times = {(name, command): [] for name in binaries for command in ("status", "watch")}
        peer = []
        for _ in range(options.runs):
            for name, binary in binaries.items():
                for command in ("status", "watch"):
                    times[(name, command)].append(first_line([binary, command])[0])
            peer.append(first_line(["ip", "route", "show", "default"])[0])
        resident = {}
        for name, binary in binaries.items():
            _, process = first_line([binary, "watch"], keep=True)
            time.sleep(2)
            # The namespace's `ip netns exec` execs the command: the child is reach itself.
            resident[name] = {key: status_kib(process.pid, key) for key in ("VmRSS", "RssAnon", "RssFile")}
            process.kill()
            process.wait()
    finally:
        uplink_namespace.delete(NAMESPACE)
    print(f"{'binary':<20} {'status median ms':>17} {'p90':>6} {'watch median ms':>16} {'p90':>6} {'watch VmRSS MiB':>16} {'anon':>6} {'file':>6}  size MiB")
    results = {"runs": options.runs, "binaries": {}, **git_state()}
    for name, binary in binaries.items():
        status, watch = sorted(times[(name, "status")]), sorted(times[(name, "watch")])
        p90 = lambda values: values[int(len(values) * 0.9) - 1]
        m = resident[name]
        size = os.path.getsize(binary) / (1 << 20)
        print(f"{name:<20} {statistics.median(status):>17.1f} {p90(status):>6.1f} {statistics.median(watch):>16.1f} {p90(watch):>6.1f}"
              f" {m['VmRSS'] / 1024:>16.1f} {m['RssAnon'] / 1024:>6.1f} {m['RssFile'] / 1024:>6.1f}  {size:.1f}")
        results["binaries"][name] = {"path": binary, "status_ms": status, "watch_ms": watch, "watch_memory_kib": m, "size": os.path.getsize(binary)}
    peer.sort()
    print(f"{'ip route show default':<20} {statistics.median(peer):>17.1f} {peer[int(len(peer) * 0.9) - 1]:>6.1f}")
    results["peer_ip_route_ms"] = peer
    out = write_results(results, os.path.join(ROOT, "scripts/bench/results"), "startup", started)
    print(f"startup: figures in {os.path.relpath(out, ROOT)}")


if __name__ == "__main__":
    main()
