#!/usr/bin/env python3
"""Benchmarks the daemon under a /v1/route flood of slow names (issue 35): 100 connections of an
unprivileged user asking for names a DNS server of our own answers only after 4.5 s, against
the figures the jobs depend on.

  sudo python3 scripts/bench/bench_route_flood.py [--seconds 20] [--daemon PATH]

In two namespaces of its own (a client with a "Wi-Fi" veth and a "cellular" one, a server with
an HTTP server and the slow DNS server), with the daemon resolving through that server:
- /v1/route for an address literal, idle and under the flood (p50, p99, max), and beside it
  the kernel's own answer (`ip route get`, one process per question) as the peer;
- under the flood: how long a new job takes to finish (a 1 kB download, `--settle 0`), and how
  long a running `--no-cellular` download runs on once its route moves to cellular.
Prints a table, writes scripts/bench/results/route-flood-*.json. Targets: a new job within
1 s, the pause within 0.5 s, the literal's p99 within 1 ms.
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib  # noqa: E402
from benchlib import REPO, log  # noqa: E402

SERVER = "10.9.0.1"


def sh(*command, check=True, **kwargs):
    return subprocess.run(command, check=check, capture_output=True, text=True, **kwargs)


def setup(janitor, client, server):
    for name in (client, server):
        sh("ip", "netns", "add", name)
        janitor.add_namespace(name)
        sh("ip", "-n", name, "link", "set", "lo", "up")
    sh("ip", "-n", server, "addr", "add", f"{SERVER}/32", "dev", "lo")
    for link, subnet in (("va", "10.1.0"), ("wa", "10.2.0")):
        sh("ip", "link", "add", link, "netns", client, "type", "veth", "peer", "name", link + "-peer", "netns", server)
        sh("ip", "-n", client, "addr", "add", f"{subnet}.2/24", "dev", link)
        sh("ip", "-n", server, "addr", "add", f"{subnet}.1/24", "dev", link + "-peer")
        sh("ip", "-n", client, "link", "set", link, "up")
        sh("ip", "-n", server, "link", "set", link + "-peer", "up")
    sh("ip", "-n", client, "route", "add", SERVER, "via", "10.1.0.1", "dev", "va", "metric", "100")


def start(janitor, command, **kwargs):
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, **kwargs)
    janitor.add_proc(process)
    return process


def queue(socket, *arguments):
    return sh(os.path.join(REPO, ".build", "debug", "reach") if not os.environ.get("REACH") else os.environ["REACH"],
              "queue", "--socket", socket, *arguments, check=False)


def job(socket, ident):
    shown = queue(socket, "show", ident, "--json")
    return json.loads(shown.stdout)["job"] if shown.returncode == 0 else {}


def wait_job(socket, ident, predicate, bound=30.0):
    deadline = time.monotonic() + bound
    while time.monotonic() < deadline:
        current = job(socket, ident)
        if predicate(current):
            return current, time.monotonic()
        time.sleep(0.01)
    raise RuntimeError(f"job {ident} never matched: {job(socket, ident)}")


def kernel_peer(client, count=200):
    """`ip route get` latencies (ms), one process per question, as the kernel's own answer."""
    took = []
    for _ in range(count):
        began = time.monotonic()
        sh("ip", "-n", client, "-j", "route", "get", SERVER)
        took.append((time.monotonic() - began) * 1000)
    took.sort()
    return {"count": count, "p50": took[len(took) // 2], "p99": took[int(0.99 * len(took))], "max": took[-1]}


def flood(janitor, socket, connections, seconds, user):
    script = os.path.join(REPO, "scripts", "testservers", "route_flood.py")
    prefix = ["setpriv", f"--reuid={user}", "--regid=nogroup", "--clear-groups"] if user else []
    process = start(janitor, [*prefix, sys.executable, "-u", script, socket, "--connections", str(connections),
                              "--seconds", str(seconds), "--literal", SERVER])
    assert process.stdout.readline().startswith("flooding")
    return process


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--daemon", default=os.path.join(REPO, ".build-release", "release", "reach-daemon"))
    parser.add_argument("--server", default=os.path.join(REPO, ".build-release", "release", "reach-testserver"))
    args = parser.parse_args()
    if os.geteuid() != 0:
        print("bench_route_flood: needs root (namespaces, mounts, setpriv)", file=sys.stderr)
        return 2
    started = datetime.datetime.now(datetime.timezone.utc)
    benchlib.raise_on_stop_signals()
    benchlib.remove_stale_namespaces(r"rf(\d+)-.*")
    janitor = benchlib.Janitor()
    client, server = f"rf{os.getpid()}-client", f"rf{os.getpid()}-server"
    results = {"kind": "route-flood", "git": benchlib.git_state(), "loadavg": benchlib.loadavg()}
    with benchlib.Guarded(janitor):
        directory = tempfile.mkdtemp(prefix="route-flood.", dir="/tmp")
        janitor.add_directory(directory)
        os.chmod(directory, 0o755)
        setup(janitor, client, server)
        with open(os.path.join(directory, "small.bin"), "wb") as out:
            out.write(os.urandom(1000))
        with open(os.path.join(directory, "big.bin"), "wb") as out:
            out.write(os.urandom(20_000_000))
        http = start(janitor, ["ip", "netns", "exec", server, args.server, "--root", directory, "--port", "0", "--host", SERVER,
                               "--log", os.path.join(directory, "requests.log")])
        port = int(http.stdout.readline().strip().rsplit(":", 1)[1])
        dns = start(janitor, ["ip", "netns", "exec", server, sys.executable, "-u",
                              os.path.join(REPO, "scripts", "testservers", "slow_dns.py"), SERVER, "--answer", f"files.test={SERVER}"])
        assert dns.stdout.readline().startswith("listening")
        # `ip netns exec` bind-mounts /etc/netns/NAME/resolv.conf over /etc/resolv.conf.
        os.makedirs(f"/etc/netns/{client}", exist_ok=True)
        janitor.add_directory(f"/etc/netns/{client}")
        with open(f"/etc/netns/{client}/resolv.conf", "w") as out:
            out.write(f"nameserver {SERVER}\noptions timeout:10 attempts:1\n")
        socket = os.path.join(directory, "run", "reach.sock")
        daemon_log = open("/tmp/route-flood-daemon.log", "w")
        daemon = subprocess.Popen(["ip", "netns", "exec", client, args.daemon, "daemon", "--state-dir", os.path.join(directory, "state"),
                                   "--socket", socket, "--override", "va=wifi", "--override", "wa=cellular", "--sysfs-root", "/nonexistent",
                                   "--log-level", "debug"], stdout=daemon_log, stderr=daemon_log)
        janitor.add_proc(daemon)
        for _ in range(500):
            if queue(socket, "list").returncode == 0:
                break
            time.sleep(0.02)
        os.chmod(directory, 0o755)
        path_socket = os.path.join(directory, "run", "path.sock")

        warm = queue(socket, "add", "get", f"http://files.test:{port}/small.bin", "-o", os.path.join(directory, "warm.out"),
                     "--settle", "0").stdout.strip()
        log(f"before the flood: {wait_job(socket, warm, lambda j: j.get('state') in ('succeeded', 'failed'), bound=15)[0].get('state')}")
        idle = flood(janitor, path_socket, 0, 5, "nobody")
        results["literal_idle_ms"] = json.loads(idle.stdout.read().strip().splitlines()[-1])["literal"]
        results["kernel_peer_ms"] = kernel_peer(client)

        storm = flood(janitor, path_socket, 100, args.seconds, "nobody")
        time.sleep(6)  # the first slow lookups have run out their time
        began = time.monotonic()
        ident = queue(socket, "add", "get", f"http://files.test:{port}/small.bin", "-o", os.path.join(directory, "small.out"),
                      "--settle", "0").stdout.strip()
        _, finished = wait_job(socket, ident, lambda j: j.get("state") == "succeeded")
        results["new_job_s"] = finished - began
        big = queue(socket, "add", "get", f"http://files.test:{port}/big.bin?slow=2000000", "-o", os.path.join(directory, "big.out"),
                    "--no-cellular", "--settle", "0").stdout.strip()
        wait_job(socket, big, lambda j: j.get("state") == "running" and j.get("progress", {}).get("completedBytes", 0) > 100_000)
        sh("ip", "-n", client, "route", "add", SERVER, "via", "10.2.0.1", "dev", "wa", "metric", "10")
        moved = time.monotonic()
        held, paused = wait_job(socket, big, lambda j: j.get("state") != "running")
        results["pause_after_move_s"] = paused - moved
        results["paused_reason"] = (held.get("reason") or {}).get("code")
        report = json.loads(storm.stdout.read().strip().splitlines()[-1])
        results["literal_flood_ms"] = report["literal"]
        results["flood_statuses"] = report["statuses"]
        janitor.stop_proc(daemon)
    benchlib.record_end(results, started, "rf")
    path = benchlib.write_results(results, benchlib.RESULTS_DIR, "route-flood", started)
    rows = [
        ("/v1/route, literal, idle (p50 / p99 / max ms)", "{p50:.2f} / {p99:.2f} / {max:.2f}".format(**results["literal_idle_ms"])),
        ("peer: ip route get, one process each (p50 / p99 / max ms)", "{p50:.2f} / {p99:.2f} / {max:.2f}".format(**results["kernel_peer_ms"])),
        ("/v1/route, literal, under the flood (p50 / p99 / max ms)", "{p50:.2f} / {p99:.2f} / {max:.2f}".format(**results["literal_flood_ms"])),
        ("a new job finishes, under the flood (s; target 1)", f"{results['new_job_s']:.3f}"),
        ("--no-cellular download paused after the move (s; target 0.5)", f"{results['pause_after_move_s']:.3f}"),
        ("the flood's answers", json.dumps(results["flood_statuses"])),
    ]
    width = max(len(row[0]) for row in rows)
    for label, value in rows:
        print(f"{label.ljust(width)}  {value}")
    print(f"JSON: {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
