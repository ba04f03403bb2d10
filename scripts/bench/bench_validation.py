#!/usr/bin/env python3
"""Benchmark connectivity validation (`reach watch --probe`) in private network namespaces.

Run as root (see validation.sh, which builds the release binary first):

    python3 scripts/bench/bench_validation.py [--reach PATH] [--quick] [--runs N] [--strict]

Network
-------
Two namespaces, `reach-benchval-<pid>-client` and `reach-benchval-<pid>-router` (IPv6 disabled,
so nothing but what is measured crosses the link), deleted on exit, on error and on
SIGINT/SIGTERM/SIGHUP after every process this script started (and anything those left in
the namespaces) is stopped:

* client: `va` (10.1.0.2/24), a veth to `va-peer` (10.1.0.1/24) in the router, `--override
  va=wifi --sysfs-root /nonexistent`, and a systemd-networkd lease for va's index under a
  temporary `--dhcp-lease-root` (`ADDRESS=10.1.0.2`, `DNS=10.1.0.1`).
* router: 10.9.0.1 and 10.9.0.2 on its loopback; nginx (/usr/sbin/nginx, a temporary
  configuration, foreground) serving `location = /generate_204 { return 204; }` on 10.9.0.1:80
  and a portal on 10.9.0.2:80 answering every path `302 http://10.9.0.2/login`, logging every
  request with `$request_length` and `$bytes_sent`; dnsmasq (/usr/sbin/dnsmasq, --no-daemon,
  listening on 10.1.0.1 only, --log-queries into a file) answering `probe.test` with 10.9.0.1
  (mode `answer`) or every name with 10.9.0.2 (mode `hijack`, a portal's DNS).

No traffic leaves the two namespaces.

Scenarios
---------
1. route: `reach watch --json --debounce 0 --probe http://probe.test/generate_204` runs in the
   client with va addressed but no default route. T0 = wall clock just before the `ip route add
   default via 10.1.0.1 dev va` process is started; T1 = the `time` field of the first line
   whose `connectivity` is `full`. Reported next to it, measured by the peer in the same run
   once reach has answered: the probe's round trip, as the sum of a DNS query for probe.test
   to 10.1.0.1 (UDP, bound to va, timed in a helper started in the client namespace) and
   `curl -s -o /dev/null --interface va -w '%{time_total}' http://10.9.0.1/generate_204`;
   and the `milliseconds` of reach's own probe record. Target per run: T1 - T0 <= peer RTT +
   50 ms. The route is removed between runs (and reach's answer to that awaited).
2. portal: dnsmasq in hijack mode, va without an address. T0 = just before one `ip -batch`
   adds 10.1.0.2/24 to va and the default route; T1 = `time` of the first line whose
   connectivity is `portal`. Target <= 3 s. Address and route are removed between runs.
3. traffic: `reach watch` without --probe through route and address cycles (route add/del;
   address del, address + route add, route del), waiting for reach's line after each change;
   the nginx access log and dnsmasq's query log must not grow (target 0 requests, 0 queries);
   va's packet counters are reported too. Then the same cycles with --probe: requests, queries
   and bytes per probe round (nginx `$request_length` + `$bytes_sent`; va's byte counters for
   everything on the wire, ARP and DNS included), reported, not a target.

`time` is printed with millisecond resolution (truncated), so T1 - T0 can be up to 1 ms short.

Output: a table on stdout, JSON in scripts/bench/results/validation-<UTC time>.json.
Exit status: 0; 1 if a scenario failed, probe traffic was seen with --probe off, or a namespace
was left behind; with --strict also 1 when a latency target is not met; 128+N on signal N.
"""

from __future__ import annotations

import argparse
import collections
import datetime
import json
import math
import os
import re
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time

from benchlib import (REPO, RESULTS_DIR, Guarded, Janitor, git_state, loadavg, log, record_end,
                      raise_on_stop_signals, remove_stale_namespaces, render_safely, run_scenario, stamped_lines,
                      write_results)

NS_PREFIX = "reach-benchval-"
SCRIPT = os.path.abspath(__file__)

NGINX = "/usr/sbin/nginx"
DNSMASQ = "/usr/sbin/dnsmasq"
CLIENT_ADDRESS = "10.1.0.2"
GATEWAY = "10.1.0.1"
INTERNET = "10.9.0.1"
PORTAL = "10.9.0.2"
PROBE_HOST = "probe.test"
PROBE_URL = f"http://{PROBE_HOST}/generate_204"
PORTAL_LOGIN = f"http://{PORTAL}/login"
SO_BINDTODEVICE = 25

ROUTE_SLACK_MS = 50.0
PORTAL_TARGET_MS = 3000.0


# --------------------------------------------------------------------------------------------
# The DNS helper (runs inside the client namespace; stdlib only)
# --------------------------------------------------------------------------------------------

def dns_query_main(server: str, name: str, interface: str) -> int:
    """One A query for `name` to `server`, out of `interface`; prints {"ms", "answer"}."""
    query_id = os.getpid() & 0xFFFF
    question = b"".join(bytes([len(label)]) + label.encode() for label in name.split(".")) + b"\0"
    packet = struct.pack("!HHHHHH", query_id, 0x0100, 1, 0, 0, 0) + question + struct.pack("!HH", 1, 1)
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.setsockopt(socket.SOL_SOCKET, SO_BINDTODEVICE, interface.encode())
    sock.settimeout(3)
    start = time.perf_counter()
    sock.sendto(packet, (server, 53))
    answer = None
    while True:
        data, _ = sock.recvfrom(4096)
        if len(data) >= 12 and struct.unpack_from("!H", data)[0] == query_id:
            break
    elapsed = (time.perf_counter() - start) * 1000
    # The answer's last 4 bytes are the address of a single A record.
    count = struct.unpack_from("!H", data, 6)[0]
    if count and len(data) >= 4:
        answer = socket.inet_ntoa(data[-4:])
    print(json.dumps({"ms": elapsed, "answer": answer, "rcode": data[3] & 0x0F}))
    return 0


# Cleanup: processes we started, namespaces we created
# --------------------------------------------------------------------------------------------

JANITOR = Janitor(close_output=True)


def run(argv: list[str], timeout: float = 20, check: bool = True, input: str | None = None) -> str:
    result = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, input=input)
    if check and result.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)}: exit {result.returncode}: {result.stderr.strip()}")
    return result.stdout


# --------------------------------------------------------------------------------------------
# `reach watch --json`, its lines stamped on arrival
# --------------------------------------------------------------------------------------------

def parse_time(text: str) -> float:
    """`2026-11-24T10:00:00.123Z` -> seconds since the epoch."""
    stamp = datetime.datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=datetime.timezone.utc)
    return stamp.timestamp()


class Watch:
    def __init__(self, argv: list[str]) -> None:
        self.argv = argv
        self.proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        JANITOR.add_proc(self.proc)
        self.events: list[dict] = []
        self.arrivals: list[float] = []  # wall clock
        self.cond = threading.Condition()
        self.eof = False
        self.bad_lines: list[str] = []
        self.stderr_tail: collections.deque[str] = collections.deque(maxlen=20)
        threading.Thread(target=self._read_stdout, daemon=True).start()
        threading.Thread(target=self._read_stderr, daemon=True).start()

    def _read_stdout(self) -> None:
        for stamp, complete in stamped_lines(self.proc.stdout, time.time):
            with self.cond:
                for raw in complete:
                    if not raw.strip():
                        continue
                    try:
                        self.events.append(json.loads(raw))
                        self.arrivals.append(stamp)
                    except ValueError:
                        self.bad_lines.append(raw.decode(errors="replace"))
                self.cond.notify_all()
        with self.cond:
            self.eof = True
            self.cond.notify_all()

    def _read_stderr(self) -> None:
        for raw in self.proc.stderr:
            self.stderr_tail.append(raw.decode(errors="replace").rstrip())

    def count(self) -> int:
        with self.cond:
            return len(self.events)

    def wait_for(self, accept, after: int, timeout: float, what: str) -> int:
        deadline = time.monotonic() + timeout
        with self.cond:
            while True:
                for index in range(after, len(self.events)):
                    if accept(self.events[index]):
                        return index
                if self.eof:
                    raise RuntimeError(f"reach exited ({self.proc.poll()}) waiting for {what}; stderr: {list(self.stderr_tail)}")
                left = deadline - time.monotonic()
                if left <= 0:
                    last = self.events[-1] if self.events else None
                    brief = None if last is None else {k: last.get(k) for k in ("time", "status", "connectivity", "portalURL")}
                    raise TimeoutError(f"no line with {what} within {timeout:.0f} s (last line: {brief})")
                self.cond.wait(left)

    def stop(self) -> None:
        JANITOR.release_proc(self.proc)


def va_validation(event: dict) -> dict | None:
    for interface in event.get("interfaces") or []:
        if interface.get("name") == "va":
            return interface.get("validation")
    return None


def routed(event: dict) -> bool:
    return event.get("primary") is not None


# --------------------------------------------------------------------------------------------
# The two namespaces and their servers
# --------------------------------------------------------------------------------------------

class Network:
    def __init__(self, work: str) -> None:
        self.work = work
        pid = os.getpid()
        self.client = f"{NS_PREFIX}{pid}-client"
        self.router = f"{NS_PREFIX}{pid}-router"
        for name in (self.client, self.router):
            if os.path.exists(f"/run/netns/{name}"):
                raise RuntimeError(f"namespace {name} exists already")
            run(["ip", "netns", "add", name])
            JANITOR.add_namespace(name)
            for key in ("all", "default"):
                self.exec(name, ["sysctl", "-qw", f"net.ipv6.conf.{key}.disable_ipv6=1"])
            self.ip(name, "link", "set", "lo", "up")
        self.ip(self.client, "link", "add", "va", "type", "veth", "peer", "name", "va-peer", "netns", self.router)
        self.batch(self.router, [f"addr add {GATEWAY}/24 dev va-peer", "link set va-peer up",
                                 f"addr add {INTERNET}/32 dev lo", f"addr add {PORTAL}/32 dev lo"])
        self.batch(self.client, [f"addr add {CLIENT_ADDRESS}/24 dev va", "link set va up"])
        for _ in range(300):
            if "LOWER_UP" in self.ip(self.client, "link", "show", "va"):
                break
            time.sleep(0.01)
        else:
            raise RuntimeError("va never came up")
        self.va_index = int(self.ip(self.client, "-o", "link", "show", "va").split(":", 1)[0])
        self.lease_root = os.path.join(work, "leases")
        self.write_lease()
        self.access_log = os.path.join(work, "access.log")
        self.dns_log = os.path.join(work, "dnsmasq.log")
        self.nginx = self.start_nginx()
        self.dnsmasq: subprocess.Popen | None = None
        self.dns_mode: str | None = None

    # --- commands ---

    @staticmethod
    def exec(namespace: str, argv: list[str], timeout: float = 20) -> str:
        return run(["ip", "netns", "exec", namespace, *argv], timeout=timeout)

    @staticmethod
    def ip(namespace: str, *args: str, check: bool = True) -> str:
        return run(["ip", "-n", namespace, *args], check=check)

    @staticmethod
    def batch(namespace: str, commands: list[str]) -> None:
        run(["ip", "-n", namespace, "-batch", "-"], input="\n".join(commands) + "\n")

    def timed_batch(self, commands: list[str]) -> tuple[float, float]:
        """Runs `commands` in one `ip -batch` in the client; (wall clock before start, after exit)."""
        before = time.time()
        result = subprocess.run(["ip", "-n", self.client, "-batch", "-"], input="\n".join(commands) + "\n",
                                capture_output=True, text=True, timeout=20)
        after = time.time()
        if result.returncode != 0:
            raise RuntimeError(f"ip -batch {commands}: {result.stderr.strip()}")
        return before, after

    def client_state(self) -> tuple[bool, bool]:
        """(va has its address, a default route exists) in the client."""
        addressed = f"{CLIENT_ADDRESS}/24" in self.ip(self.client, "-4", "-o", "addr", "show", "dev", "va")
        route = bool(self.ip(self.client, "-4", "route", "show", "default").strip())
        return addressed, route

    def set_client(self, address: bool, route: bool) -> None:
        has_address, has_route = self.client_state()
        commands = []
        if has_route and (not route or not address):
            commands.append("route del default")
            has_route = False
        if has_address and not address:
            commands.append(f"addr del {CLIENT_ADDRESS}/24 dev va")
        if address and not has_address:
            commands.append(f"addr add {CLIENT_ADDRESS}/24 dev va")
        if route and not has_route:
            commands.append(f"route add default via {GATEWAY} dev va")
        if commands:
            self.batch(self.client, commands)

    def write_lease(self) -> None:
        path = os.path.join(self.lease_root, "run/systemd/netif/leases", str(self.va_index))
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as out:
            out.write(f"# This is private data. Do not parse.\nADDRESS={CLIENT_ADDRESS}\nNETMASK=255.255.255.0\n"
                      f"ROUTER={GATEWAY}\nSERVER_ADDRESS={GATEWAY}\nLIFETIME=1h\nDNS={GATEWAY}\n")

    # --- servers ---

    def start_daemon(self, argv: list[str], name: str) -> subprocess.Popen:
        errors = open(os.path.join(self.work, f"{name}.stderr"), "ab")
        proc = subprocess.Popen(["ip", "netns", "exec", self.router, *argv], stdin=subprocess.DEVNULL,
                                stdout=errors, stderr=errors)
        errors.close()
        JANITOR.add_proc(proc)
        return proc

    def wait_listening(self, proc: subprocess.Popen, flag: str, endpoints: list[str], name: str) -> None:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                with open(os.path.join(self.work, f"{name}.stderr"), errors="replace") as handle:
                    raise RuntimeError(f"{name} exited {proc.returncode}: {handle.read()[-2000:]}")
            listening = self.exec(self.router, ["ss", flag])
            if all(f"{endpoint} " in listening for endpoint in endpoints):
                return
            time.sleep(0.02)
        raise RuntimeError(f"{name} does not listen on {endpoints}")

    def start_nginx(self) -> subprocess.Popen:
        temp = os.path.join(self.work, "nginx-tmp")
        os.makedirs(temp, exist_ok=True)
        conf = os.path.join(self.work, "nginx.conf")
        with open(conf, "w") as out:
            out.write(f"""daemon off; master_process off; worker_processes 1; pid {self.work}/nginx.pid;
error_log {self.work}/nginx-error.log;
events {{ worker_connections 64; }}
http {{
  log_format probes '$msec $server_addr:$server_port $remote_addr "$request" $status $request_length $bytes_sent';
  access_log {self.access_log} probes;
  client_body_temp_path {temp}; proxy_temp_path {temp}; fastcgi_temp_path {temp}; uwsgi_temp_path {temp}; scgi_temp_path {temp};
  server {{
    listen {INTERNET}:80;
    location = /generate_204 {{ return 204; }}
    location / {{ return 404; }}
  }}
  server {{
    listen {PORTAL}:80;
    location / {{ return 302 {PORTAL_LOGIN}; }}
  }}
}}
""")
        proc = self.start_daemon([NGINX, "-p", self.work, "-e", f"{self.work}/nginx-error.log", "-c", conf], "nginx")
        self.wait_listening(proc, "-Hltn", [f"{INTERNET}:80", f"{PORTAL}:80"], "nginx")
        return proc

    def set_dns(self, mode: str) -> None:
        if mode == self.dns_mode:
            return
        if self.dnsmasq is not None:
            JANITOR.release_proc(self.dnsmasq)
            self.dnsmasq = None
        answer = {"answer": f"--address=/{PROBE_HOST}/{INTERNET}", "hijack": f"--address=/#/{PORTAL}"}[mode]
        self.dnsmasq = self.start_daemon([
            DNSMASQ, "--no-daemon", "--conf-file=/dev/null", "--no-resolv", "--no-hosts", "--bind-interfaces",
            f"--listen-address={GATEWAY}", "--port=53", "--pid-file=", "--log-queries", f"--log-facility={self.dns_log}",
            answer], "dnsmasq")
        self.wait_listening(self.dnsmasq, "-Hlun", [f"{GATEWAY}:53"], "dnsmasq")
        self.dns_mode = mode

    # --- counters ---

    def http_requests(self) -> list[dict]:
        rows = []
        try:
            with open(self.access_log) as handle:
                for line in handle:
                    match = re.fullmatch(r'(\S+) (\S+) (\S+) "([^"]*)" (\d+) (\d+) (\d+)\s*', line)
                    if match:
                        rows.append({"msec": float(match.group(1)), "server": match.group(2), "client": match.group(3),
                                     "request": match.group(4), "status": int(match.group(5)),
                                     "request_length": int(match.group(6)), "bytes_sent": int(match.group(7))})
        except FileNotFoundError:
            pass
        return rows

    def dns_queries(self) -> list[str]:
        try:
            with open(self.dns_log, errors="replace") as handle:
                return [line.rstrip() for line in handle if " query[" in line]
        except FileNotFoundError:
            return []

    def va_counters(self) -> dict:
        data = json.loads(self.ip(self.client, "-s", "-j", "link", "show", "va"))[0]["stats64"]
        return {"tx_packets": data["tx"]["packets"], "tx_bytes": data["tx"]["bytes"],
                "rx_packets": data["rx"]["packets"], "rx_bytes": data["rx"]["bytes"]}

    def traffic(self) -> dict:
        return {"http": self.http_requests(), "dns": self.dns_queries(), "va": self.va_counters()}

    # --- peer measurements ---

    def peer_rtt(self) -> dict:
        """The probe's work done by tools in the client: a DNS query and curl's GET by address."""
        dns = json.loads(self.exec(self.client, [sys.executable, SCRIPT, "--dns-query", GATEWAY, PROBE_HOST, "va"]))
        curl = self.exec(self.client, ["curl", "-s", "-o", "/dev/null", "--interface", "va", "-w", "%{time_total} %{http_code}",
                                       f"http://{INTERNET}/generate_204"])
        seconds, code = curl.split()
        return {"dns_ms": dns["ms"], "dns_answer": dns["answer"], "http_ms": float(seconds) * 1000, "http_code": int(code),
                "rtt_ms": dns["ms"] + float(seconds) * 1000}

    def watch(self, reach: str, probe: bool) -> Watch:
        argv = ["ip", "netns", "exec", self.client, reach, "watch", "--json", "--debounce", "0",
                "--override", "va=wifi", "--sysfs-root", "/nonexistent", "--dhcp-lease-root", self.lease_root]
        if probe:
            argv += ["--probe", PROBE_URL]
        watch = Watch(argv)
        watch.wait_for(lambda _: True, 0, 15, "the first line")
        return watch


# --------------------------------------------------------------------------------------------
# Scenarios
# --------------------------------------------------------------------------------------------

def connectivity_runs(net: Network, args, name: str, commands: list[str], reached: str, address_between: bool,
                      judge) -> dict:
    """`args.runs` times: `commands` in one timed `ip -batch` in the client (T0 just before), then
    the first line whose connectivity is `reached` (T1 its `time`); judge(entry, event, probe
    record or None, T1) completes the run's entry. Between runs the client is put back to no
    default route (with its address if `address_between`) and reach's answer awaited."""
    watch = net.watch(args.reach, probe=True)
    runs = []
    try:
        for number in range(args.runs):
            start = watch.count()
            t0, returned = net.timed_batch(commands)
            entry: dict = {"run": number + 1, "t0": t0, "ip_returned_ms": (returned - t0) * 1000}
            try:
                index = watch.wait_for(lambda e: e.get("connectivity") == reached, start, args.timeout,
                                       f"connectivity {reached}")
                event = watch.events[index]
                t1 = parse_time(event["time"])
                entry["latency_ms"] = (t1 - t0) * 1000
                entry["arrival_ms"] = (watch.arrivals[index] - t0) * 1000
                entry[f"lines_before_{reached}"] = [e.get("connectivity") for e in watch.events[start:index]]
                probes = (va_validation(event) or {}).get("probes") or []
                record = probes[0] if probes else None
                if record:
                    entry["probe_ms"] = record["milliseconds"]
                    entry["probe_detail"] = record["detail"]
                    entry["route_to_probe_start_ms"] = record["startedAt"] - t0 * 1000
                judge(entry, event, record, t1)
            except (TimeoutError, RuntimeError, ValueError, KeyError) as error:
                entry["error"] = f"{type(error).__name__}: {error}"
                entry["met"] = False
                log(f"{name} run {number + 1}: {entry['error']}")
            runs.append(entry)
            start = watch.count()
            net.set_client(address=address_between, route=False)
            watch.wait_for(lambda e: not routed(e) and e.get("connectivity") != reached, start, args.timeout, "no route")
            time.sleep(args.gap)
    finally:
        watch.stop()
    return {"runs": runs, "stderr": list(watch.stderr_tail)}


def scenario_route(net: Network, args) -> dict:
    """New default route -> connectivity full, against the peer's own probe round trip."""
    net.set_dns("answer")
    net.set_client(address=True, route=False)

    def judge(entry: dict, event: dict, record: dict | None, t1: float) -> None:
        if record:
            entry["probe_outcome"] = record["outcome"]
            entry["probe_end_to_line_ms"] = (t1 * 1000) - (record["startedAt"] + record["milliseconds"])
        entry["peer"] = net.peer_rtt()
        entry["target_ms"] = entry["peer"]["rtt_ms"] + ROUTE_SLACK_MS
        entry["met"] = entry["latency_ms"] <= entry["target_ms"]

    return connectivity_runs(net, args, "route", [f"route add default via {GATEWAY} dev va"], "full",
                             address_between=True, judge=judge)


def scenario_portal(net: Network, args) -> dict:
    """Address (and default route) assigned -> connectivity portal, behind a hijacking DNS."""
    net.set_dns("hijack")
    net.set_client(address=False, route=False)

    def judge(entry: dict, event: dict, record: dict | None, t1: float) -> None:
        entry["portal_url"] = event.get("portalURL")
        entry["met"] = entry["latency_ms"] <= PORTAL_TARGET_MS and entry["portal_url"] == PORTAL_LOGIN

    return connectivity_runs(net, args, "portal",
                             [f"addr add {CLIENT_ADDRESS}/24 dev va", f"route add default via {GATEWAY} dev va"],
                             "portal", address_between=False, judge=judge)


def traffic_phase(net: Network, args, probe: bool) -> dict:
    """Route and address cycles under one `reach watch`; what reached the servers meanwhile."""
    net.set_client(address=True, route=False)
    time.sleep(0.2)
    before = net.traffic()
    watch = net.watch(args.reach, probe=probe)
    reached = (lambda e: e.get("connectivity") == "full") if probe else routed
    changes = 0
    try:
        for _ in range(args.cycles):
            # A new default route.
            start = watch.count()
            net.batch(net.client, [f"route add default via {GATEWAY} dev va"])
            watch.wait_for(reached, start, args.timeout, "a route")
            time.sleep(args.gap)
            start = watch.count()
            net.batch(net.client, ["route del default"])
            watch.wait_for(lambda e: not routed(e), start, args.timeout, "no route")
            # An address assigned (with its route), as after DHCP.
            net.batch(net.client, [f"addr del {CLIENT_ADDRESS}/24 dev va"])
            time.sleep(args.gap)
            start = watch.count()
            net.batch(net.client, [f"addr add {CLIENT_ADDRESS}/24 dev va", f"route add default via {GATEWAY} dev va"])
            watch.wait_for(reached, start, args.timeout, "a route")
            time.sleep(args.gap)
            start = watch.count()
            net.batch(net.client, ["route del default"])
            watch.wait_for(lambda e: not routed(e), start, args.timeout, "no route")
            changes += 5
        time.sleep(1.0)  # a late probe would show up in the logs by now
        lines = watch.count()
        rounds = sum(1 for e in watch.events if (va_validation(e) or {}).get("probes"))
        # Distinct rounds: a record's startedAt identifies its round.
        starts = {p["startedAt"] for e in watch.events for p in ((va_validation(e) or {}).get("probes") or [])}
    finally:
        watch.stop()
    time.sleep(0.2)
    after = net.traffic()
    http = after["http"][len(before["http"]):]
    dns = after["dns"][len(before["dns"]):]
    va = {key: after["va"][key] - before["va"][key] for key in before["va"]}
    return {"probe": probe, "cycles": args.cycles, "changes": changes, "lines": lines, "probe_rounds": len(starts),
            "lines_with_probes": rounds, "http_requests": len(http), "dns_queries": len(dns), "va": va,
            "http_log": http, "dns_log": dns[:50],
            "http_bytes": [r["request_length"] + r["bytes_sent"] for r in http]}


def scenario_traffic(net: Network, args) -> dict:
    net.set_dns("answer")
    result = {"off": traffic_phase(net, args, probe=False)}
    try:
        result["on"] = traffic_phase(net, args, probe=True)
    except (RuntimeError, TimeoutError, subprocess.TimeoutExpired, OSError, KeyError, ValueError) as error:
        log(f"scenario traffic, --probe on: {type(error).__name__}: {error}")
        result["error"] = f"--probe on: {type(error).__name__}: {error}"
    return result


# --------------------------------------------------------------------------------------------
# Report
# --------------------------------------------------------------------------------------------

def percentile(values: list[float], fraction: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return ordered[max(0, math.ceil(fraction * len(ordered)) - 1)]


def fmt(value, digits: int = 1) -> str:
    if value is None:
        return "-"
    if isinstance(value, int):
        return str(value)
    return f"{value:.{digits}f}"


def verdict(met) -> str:
    return "-" if met is None else ("met" if met else "NOT MET")


def render(results: dict) -> tuple[str, list[dict], list[dict]]:
    rows: list[dict] = []
    notes: list[str] = []
    checks: list[dict] = []
    scenarios = results["scenarios"]

    def stats(case: str, values: list[float], target: str, met, n: int | None = None, digits: int = 1) -> None:
        rows.append({"case": case, "n": len(values) if n is None else n, "p50": percentile(values, 0.5),
                     "p95": percentile(values, 0.95), "max": max(values) if values else None, "target": target,
                     "met": met, "digits": digits})

    route = scenarios.get("route")
    if route is not None:
        if "error" in route:
            rows.append({"case": "1 route -> full", "n": 0, "target": "<= RTT + 50 ms", "met": False})
            notes.append(f"1 route: FAILED: {route['error']}")
            checks.append({"name": "1 every run reached connectivity full", "passed": False})
        else:
            runs = route["runs"]
            good = [r for r in runs if "latency_ms" in r]
            failed = len(runs) - len(good)
            stats("1 new route -> connectivity full (ms)", [r["latency_ms"] for r in good],
                  f"<= peer RTT + {ROUTE_SLACK_MS:.0f}", all(r.get("met") for r in runs) and bool(runs), n=len(runs))
            with_peer = [r for r in good if "peer" in r]
            stats("  peer RTT: DNS query + curl (ms)", [r["peer"]["rtt_ms"] for r in with_peer], "", None, digits=2)
            stats("    of which DNS query (ms)", [r["peer"]["dns_ms"] for r in with_peer], "", None, digits=2)
            stats("  reach probe record 'milliseconds'", [float(r["probe_ms"]) for r in good if "probe_ms" in r], "", None, digits=0)
            stats("  route -> probe startedAt (ms)", [r["route_to_probe_start_ms"] for r in good if "route_to_probe_start_ms" in r],
                  "", None)
            stats("  latency - (peer RTT + 50 ms) (ms)", [r["latency_ms"] - r["target_ms"] for r in good if "target_ms" in r],
                  "", None)
            checks.append({"name": "1 every run reached connectivity full", "passed": not failed and bool(runs)})
            if failed:
                notes.append(f"1 route: {failed} of {len(runs)} runs failed: {[r.get('error') for r in runs if 'error' in r][:3]}")
            details = collections.Counter(r.get("probe_detail") for r in good)
            notes.append(f"1 route: probe answers {dict(details)}; lines before `full`: "
                         f"{dict(collections.Counter(tuple(r.get('lines_before_full', [])) for r in good))}")

    portal = scenarios.get("portal")
    if portal is not None:
        if "error" in portal:
            rows.append({"case": "2 address -> portal", "n": 0, "target": f"<= {PORTAL_TARGET_MS:.0f}", "met": False})
            notes.append(f"2 portal: FAILED: {portal['error']}")
            checks.append({"name": "2 every run reached connectivity portal", "passed": False})
        else:
            runs = portal["runs"]
            good = [r for r in runs if "latency_ms" in r]
            stats("2 address assigned -> portal (ms)", [r["latency_ms"] for r in good], f"<= {PORTAL_TARGET_MS:.0f}",
                  all(r.get("met") for r in runs) and bool(runs), n=len(runs))
            stats("  reach probe record 'milliseconds'", [float(r["probe_ms"]) for r in good if "probe_ms" in r], "", None, digits=0)
            checks.append({"name": "2 every run reached connectivity portal", "passed": len(good) == len(runs) and bool(runs)})
            urls = collections.Counter(r.get("portal_url") for r in good)
            notes.append(f"2 portal: portalURL {dict(urls)}; probe answers "
                         f"{dict(collections.Counter(r.get('probe_detail') for r in good))}")
            if len(good) < len(runs):
                notes.append(f"2 portal: {len(runs) - len(good)} runs failed: {[r.get('error') for r in runs if 'error' in r][:3]}")

    traffic = scenarios.get("traffic")
    if traffic is not None:
        if "error" in traffic and "off" not in traffic:
            rows.append({"case": "3 --probe off: requests + queries", "n": 0, "target": "0", "met": False})
            notes.append(f"3 traffic: FAILED: {traffic['error']}")
            checks.append({"name": "3 zero probe traffic with --probe off", "passed": False})
        if "off" in traffic:
            off = traffic["off"]
            for case, value in (("3 --probe off: HTTP requests (total)", off["http_requests"]),
                                ("3 --probe off: DNS queries (total)", off["dns_queries"])):
                rows.append({"case": case, "n": off["changes"], "max": value, "target": "0", "met": value == 0})
            rows.append({"case": "  --probe off: packets sent on va", "n": off["changes"], "max": off["va"]["tx_packets"],
                         "target": "", "met": None})
            passed = off["http_requests"] == 0 and off["dns_queries"] == 0
            checks.append({"name": "3 zero probe traffic with --probe off", "passed": passed})
            notes.append(f"3 --probe off: {off['cycles']} cycles, {off['changes']} changes, {off['lines']} lines; "
                         f"va sent {off['va']['tx_packets']} packets ({off['va']['tx_bytes']} B), received "
                         f"{off['va']['rx_packets']} ({off['va']['rx_bytes']} B)")
        if "on" in traffic:
            on = traffic["on"]
            rounds = on["probe_rounds"]
            stats("3 --probe on: HTTP bytes per request", [float(b) for b in on["http_bytes"]], "", None, digits=0)
            wire = (on["va"]["tx_bytes"] + on["va"]["rx_bytes"]) / rounds if rounds else None
            packets = (on["va"]["tx_packets"] + on["va"]["rx_packets"]) / rounds if rounds else None
            rows.append({"case": "3 --probe on: bytes on va per round", "n": rounds, "max": wire, "target": "", "met": None,
                         "digits": 0})
            notes.append(f"3 --probe on: {on['cycles']} cycles, {on['changes']} changes, {rounds} probe rounds "
                         f"(expected {2 * on['cycles']}: one per new default route); "
                         f"{on['http_requests']} HTTP requests, {on['dns_queries']} DNS queries "
                         f"({fmt(on['dns_queries'] / rounds if rounds else None, 2)} per round); per round on va "
                         f"{fmt(wire, 0)} B in {fmt(packets, 1)} packets (both directions: ARP, DNS, TCP, HTTP); "
                         f"HTTP request+response {fmt(percentile([float(b) for b in on['http_bytes']], 0.5), 0)} B")
        if "error" in traffic and "off" in traffic:
            notes.append(f"3 traffic: FAILED: {traffic['error']}")

    header = f"{'case':42} {'n':>4} {'p50':>8} {'p95':>8} {'max':>8}  {'target':22} {'met?':7}"
    lines = [header, "-" * len(header)]
    for row in rows:
        digits = row.get("digits", 1)
        lines.append(f"{row['case']:42} {row['n']:>4} {fmt(row.get('p50'), digits):>8} {fmt(row.get('p95'), digits):>8} "
                     f"{fmt(row.get('max'), digits):>8}  {row.get('target', ''):22} {verdict(row.get('met')) if row.get('target') else '':7}")
    if notes:
        lines.append("")
        lines.extend(notes)
    if checks:
        lines.append("checks: " + "; ".join(f"{c['name']}: {'pass' if c['passed'] else 'FAIL'}" for c in checks))
    targets = [{"case": row["case"].strip(), "p50": row.get("p50"), "p95": row.get("p95"), "max": row.get("max"),
                "target": row["target"], "met": row["met"]} for row in rows if row.get("target")]
    return "\n".join(lines), [dict((k, v) for k, v in row.items() if k != "digits") for row in rows], targets + checks


def environment(reach: str) -> dict:
    env = {"kernel": os.uname().release, "cpus": os.cpu_count()}
    for key, argv in (("ip_version", ["ip", "-V"]), ("reach_version", [reach, "--version"]),
                      ("nginx_version", [NGINX, "-v"]), ("dnsmasq_version", [DNSMASQ, "--version"]),
                      ("curl_version", ["curl", "--version"])):
        try:
            result = subprocess.run(argv, capture_output=True, text=True, timeout=10)
            env[key] = (result.stdout + result.stderr).strip().splitlines()[0]
        except Exception as error:  # noqa: BLE001
            env[key] = f"? ({error})"
    env.update(git_state())
    return env


# --------------------------------------------------------------------------------------------
# Main
# --------------------------------------------------------------------------------------------

SCENARIOS = ["route", "portal", "traffic"]


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="Benchmark `reach watch --probe` in private network namespaces.")
    parser.add_argument("--reach", default=os.path.join(REPO, ".build-release", "release", "reach"),
                        help="reach binary (default: .build-release/release/reach)")
    parser.add_argument("--quick", action="store_true", help="short run: 5 repeats, 3 traffic cycles")
    parser.add_argument("--runs", type=int, help="repeats of scenarios 1 and 2 (default 20, quick 5)")
    parser.add_argument("--cycles", type=int, help="route/address cycles of scenario 3, per phase (default 10, quick 3)")
    parser.add_argument("--scenarios", default=",".join(SCENARIOS), help=f"comma-separated, of: {', '.join(SCENARIOS)}")
    parser.add_argument("--timeout", type=float, default=10.0, help="seconds to wait for each expected line (default 10)")
    parser.add_argument("--strict", action="store_true", help="exit 1 when a latency target is not met")
    parser.add_argument("--results-dir", default=RESULTS_DIR)
    parser.add_argument("--dns-query", nargs=3, metavar=("SERVER", "NAME", "INTERFACE"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    args.runs = min(max(1, args.runs or (5 if args.quick else 20)), 1000)
    args.cycles = min(max(1, args.cycles or (3 if args.quick else 10)), 200)
    args.gap = 0.3  # settle time between changes
    chosen = [s for s in args.scenarios.split(",") if s]
    unknown = [s for s in chosen if s not in SCENARIOS]
    if unknown:
        parser.error(f"unknown scenarios {unknown}; choose from {SCENARIOS}")
    args.chosen = [s for s in SCENARIOS if s in chosen]
    return args


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    if args.dns_query:
        return dns_query_main(*args.dns_query)
    if os.geteuid() != 0:
        print("bench_validation.py: must run as root (it creates network namespaces)", file=sys.stderr)
        return 2
    missing = [tool for tool in (NGINX, DNSMASQ) if not os.access(tool, os.X_OK)]
    missing += [tool for tool in ("ip", "ss", "curl") if not shutil.which(tool)]
    if missing:
        print(f"bench_validation.py: missing {missing} (scripts/setup.sh nginx-light dnsmasq-base curl)", file=sys.stderr)
        return 2
    args.reach = os.path.abspath(args.reach)
    if not os.access(args.reach, os.X_OK):
        print(f"bench_validation.py: no reach binary at {args.reach} (build it: see validation.sh)", file=sys.stderr)
        return 2
    help_text = subprocess.run([args.reach, "watch", "--help"], capture_output=True, text=True).stdout
    if "--probe" not in help_text:
        print(f"bench_validation.py: {args.reach} has no --probe option (rebuild it)", file=sys.stderr)
        return 2

    raise_on_stop_signals()
    remove_stale_namespaces(rf"{NS_PREFIX}(\d+)-(client|router)")

    started = datetime.datetime.now(datetime.timezone.utc)
    results: dict = {
        "started": started.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "config": {"reach": args.reach, "quick": args.quick, "runs": args.runs, "cycles": args.cycles, "probe": PROBE_URL,
                   "scenarios": args.chosen, "route_slack_ms": ROUTE_SLACK_MS, "portal_target_ms": PORTAL_TARGET_MS},
        "environment": environment(args.reach),
        "loadavg_start": loadavg(),
        "scenarios": {},
    }
    functions = {"route": scenario_route, "portal": scenario_portal, "traffic": scenario_traffic}
    exit_code = 0
    with Guarded(JANITOR) as guarded:
        try:
            work = tempfile.mkdtemp(prefix="reach-bench-validation-")
            os.chmod(work, 0o755)  # dnsmasq drops to nobody
            JANITOR.add_directory(work)
            log(f"namespaces {NS_PREFIX}{os.getpid()}-client/-router, files in {work}")
            net = Network(work)
            for name in args.chosen:
                log(f"scenario {name}")
                if not run_scenario(results["scenarios"], name, lambda: functions[name](net, args),
                                    (RuntimeError, TimeoutError, subprocess.TimeoutExpired, OSError, KeyError, ValueError)):
                    exit_code = 1
        except (RuntimeError, subprocess.TimeoutExpired, OSError) as error:
            log(f"setup failed: {type(error).__name__}: {error}")
            results["error"] = f"{type(error).__name__}: {error}"
            exit_code = 1

    leftovers = record_end(results, started, NS_PREFIX)
    results["loadavg_end"] = loadavg()
    if guarded.signum is not None:
        return 128 + guarded.signum

    table, rows, targets = render_safely(render, results)
    results["table"] = rows
    results["targets"] = targets
    path = write_results(results, args.results_dir, "validation", started)
    print(f"reach validation benchmark  {results['started']}  ({'quick' if args.quick else 'full'}, {args.runs} runs, "
          f"{args.cycles} traffic cycles; load {' '.join(results['loadavg_start'])})")
    print(table)
    print(f"\nrun took {results['seconds']:.0f} s; namespaces left behind: {leftovers or 'none'}; "
          f"JSON: {os.path.relpath(path)}")
    if any("error" in scenario for scenario in results["scenarios"].values()):
        exit_code = 1
    if leftovers or "error" in results or any(t.get("passed") is False for t in targets):
        exit_code = 1
    if args.strict and any(t.get("met") is False for t in targets):
        exit_code = 1
    return exit_code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
