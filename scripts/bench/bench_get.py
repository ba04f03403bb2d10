#!/usr/bin/env python3
"""Benchmark `reach get` against curl, and measure pausing on a route switch.

1. Throughput: the same file (1 GiB; --quick: 256 MiB) from a local nginx on 127.0.0.1,
   downloaded by curl and by `reach get`, alternately, N times each. Reports MiB/s, the
   ratio, CPU seconds and peak RSS (ru_maxrss), for two file sizes to show RSS is flat.
2. Pausing: `reach get --json --no-cellular` in a client namespace downloads a throttled file
   from reach-testserver in a server namespace, reached only by a host route over a "wifi"
   veth, while a cheaper route over a "cellular" veth comes and goes; for each switch to
   cellular, the time from the `ip route` command to the `paused` event. At the end: SHA-256
   of the file, bytes downloaded in total, bytes refetched (target 0).
3. Re-reading: a download paused once 2 GiB (--quick: 256 MiB) are on disk and resumed in the
   same process; the process's `rchar` (/proc/PID/io) from the pause until 16 MiB more have
   arrived, less those network bytes, is what it re-read of the partial file (target 0).

Only loopback and the benchmark's own namespace carry traffic; the namespace is deleted and
nginx stopped even on failure. Prints a table and writes scripts/bench/results/get-*.json.
"""
import argparse, atexit, hashlib, json, os, resource, shutil, signal, subprocess, sys, tempfile, threading, time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
cleanups = []


def cleanup():
    while cleanups:
        try:
            cleanups.pop()()
        except Exception as error:  # keep cleaning
            print(f"cleanup: {error}", file=sys.stderr)


atexit.register(cleanup)
for sig in (signal.SIGINT, signal.SIGTERM):
    signal.signal(sig, lambda *_: sys.exit(130))


def run_measured(command):
    """Runs a command; returns (wall seconds, cpu seconds, peak RSS MiB, exit status)."""
    start = time.monotonic()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.monotonic() - start
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, os.waitstatus_to_exitcode(status)


def make_file(path, size):
    chunk = os.urandom(1 << 20)
    with open(path, "wb") as out:
        for _ in range(size >> 20):
            out.write(chunk)


def start_nginx(root, port, work):
    conf = os.path.join(work, "nginx.conf")
    with open(conf, "w") as out:
        out.write(f"""daemon off; worker_processes 1; pid {work}/nginx.pid; error_log {work}/nginx.err;
events {{ worker_connections 64; }}
http {{ access_log off; sendfile on; tcp_nopush on;
  client_body_temp_path {work}; proxy_temp_path {work}; fastcgi_temp_path {work}; uwsgi_temp_path {work}; scgi_temp_path {work};
  server {{ listen 127.0.0.1:{port}; root {root}; }} }}
""")
    process = subprocess.Popen(["nginx", "-c", conf], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    cleanups.append(lambda: (process.terminate(), process.wait(10)))
    for _ in range(100):
        try:
            subprocess.run(["curl", "-sf", "-o", "/dev/null", "-r", "0-0", f"http://127.0.0.1:{port}/"], timeout=2)
            return
        except Exception:
            time.sleep(0.05)


def throughput(reach, work, sizes, runs, port):
    root = os.path.join(work, "www")
    os.makedirs(root, exist_ok=True)
    results = []
    for size in sizes:
        name = f"file-{size >> 20}M.bin"
        make_file(os.path.join(root, name), size)
        url = f"http://127.0.0.1:{port}/{name}"
        for tool in ("curl", "reach"):
            for _ in range(runs):
                dest = os.path.join(work, "out.bin")
                for leftover in (dest, dest + ".part", dest + ".part.json"):
                    if os.path.exists(leftover):
                        os.remove(leftover)
                command = ["curl", "-sS", "-o", dest, url] if tool == "curl" else [reach, "get", "-o", dest, url]
                wall, cpu, rss, status = run_measured(command)
                ok = status == 0 and os.path.getsize(dest) == size
                results.append({"tool": tool, "bytes": size, "seconds": wall, "mib_per_s": size / wall / (1 << 20),
                                "cpu_seconds": cpu, "peak_rss_mib": rss, "ok": ok})
                os.remove(dest)
        os.remove(os.path.join(root, name))
    return results


class RoutedNamespaces:
    """A client namespace with a "wifi" veth (va) and a "cellular" one (wa) to a server
    namespace holding 10.9.0.1 on its loopback; the client reaches it only by host routes."""

    SERVER = "10.9.0.1"
    made = 0

    def __init__(self):
        RoutedNamespaces.made += 1
        self.client = f"reach-benchget-c-{os.getpid()}-{RoutedNamespaces.made}"
        self.server = f"reach-benchget-s-{os.getpid()}-{RoutedNamespaces.made}"
        for ns in (self.client, self.server):
            subprocess.run(["ip", "netns", "add", ns], check=True)
            cleanups.append(lambda ns=ns: subprocess.run(["ip", "netns", "del", ns]))
        c = lambda *args: subprocess.run(["ip", "-n", self.client, *args], check=True)
        s = lambda *args: subprocess.run(["ip", "-n", self.server, *args], check=True)
        s("link", "set", "lo", "up")
        s("addr", "add", self.SERVER + "/32", "dev", "lo")
        for name, net in (("va", "10.1.0"), ("wa", "10.2.0")):
            c("link", "add", name, "type", "veth", "peer", "name", name + "-p")
            c("link", "set", name + "-p", "netns", self.server)
            c("link", "set", name, "up")
            c("addr", "add", net + ".2/24", "dev", name)
            s("link", "set", name + "-p", "up")
            s("addr", "add", net + ".1/24", "dev", name + "-p")
        time.sleep(1.5)
        self.route("add", "va", 100)

    def route(self, verb, device, metric):
        gateway = "10.1.0.1" if device == "va" else "10.2.0.1"
        subprocess.run(["ip", "-n", self.client, "route", verb, self.SERVER, "via", gateway, "dev", device,
                        "metric", str(metric)], check=True)

    def serve(self, server_binary, root):
        server = subprocess.Popen(["ip", "netns", "exec", self.server, server_binary, "--root", root, "--port", "0",
                                   "--host", self.SERVER], stdout=subprocess.PIPE, text=True)
        cleanups.append(lambda: (server.terminate(), server.wait(10)))
        return int(server.stdout.readline().strip().rsplit(":", 1)[1])


class JSONEvents:
    """`reach get --json` in the client namespace, its events read as they arrive."""

    def __init__(self, namespaces, reach, arguments):
        self.process = subprocess.Popen(
            ["ip", "netns", "exec", namespaces.client, reach, "get", "--json", "--no-cellular", "--settle", "0.3",
             "--override", "va=wifi", "--override", "wa=cellular", "--sysfs-root", "/nonexistent", *arguments],
            stdout=subprocess.PIPE, text=True)
        cleanups.append(lambda: self.process.poll() is None and self.process.kill())
        self.events, self.arrivals = [], []
        self.condition = threading.Condition()
        threading.Thread(target=self.reader, daemon=True).start()

    def reader(self):
        for line in self.process.stdout:
            stamp = time.monotonic()
            with self.condition:
                self.events.append(json.loads(line))
                self.arrivals.append(stamp)
                self.condition.notify_all()
        with self.condition:
            self.condition.notify_all()

    def wait_for(self, accept, after, timeout=20):
        deadline = time.monotonic() + timeout
        with self.condition:
            while True:
                for index in range(after, len(self.events)):
                    if accept(self.events[index]):
                        return index
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError(str(accept))
                self.condition.wait(left)

    def wait_event(self, kind, after, timeout=20):
        return self.wait_for(lambda event: event["event"] == kind, after, timeout)

    def rchar(self):
        """Bytes this process has read by any read(2)/pread(2) so far (sockets included)."""
        with open(f"/proc/{self.process.pid}/io") as io:
            return int(next(line for line in io if line.startswith("rchar:")).split()[1])


def write_random(path, size):
    chunk = os.urandom(1 << 20)
    digest = hashlib.sha256()
    with open(path, "wb") as out:
        for _ in range(size >> 20):
            out.write(chunk)
            digest.update(chunk)
    return digest.hexdigest()


def pausing(reach, server_binary, work, switches, size):
    """Time from a route change to the `paused` event, on the route to the server."""
    namespaces = RoutedNamespaces()
    root = os.path.join(work, "srv")
    os.makedirs(root, exist_ok=True)
    expected = write_random(os.path.join(root, "paced.bin"), size)
    port = namespaces.serve(server_binary, root)
    dest = os.path.join(work, "paced.out")
    rate = max(size // 8, 1)  # about 8 s of transfer
    get = JSONEvents(namespaces, reach, ["--sha256", expected, "-o", dest,
                                         f"http://{namespaces.SERVER}:{port}/paced.bin?slow={rate}"])
    get.wait_event("progress", 0)
    latencies = []
    for _ in range(switches):
        start = len(get.events)
        issued = time.monotonic()
        namespaces.route("add", "wa", 10)
        index = get.wait_event("paused", start)
        latencies.append((get.arrivals[index] - issued) * 1000)
        time.sleep(0.2)
        start = len(get.events)
        namespaces.route("del", "wa", 10)
        get.wait_event("resumed", start)
        time.sleep(0.4)
    done = get.events[get.wait_event("done", 0, timeout=120)]
    get.process.wait(30)
    with open(dest, "rb") as produced:
        digest = hashlib.sha256(produced.read()).hexdigest()
    latencies.sort()
    return {"switches": switches, "pause_latency_ms": latencies,
            "p50_ms": latencies[len(latencies) // 2], "max_ms": latencies[-1],
            "sha256_ok": digest == expected, "bytes": size, "downloaded": done.get("downloaded"),
            "refetched": done.get("refetched"), "restarts": done.get("restarts"), "exit": get.process.returncode}


def reread(reach, server_binary, work, partial):
    """Pause a download once `partial` bytes are on disk, resume it, and count what the process
    read besides the network: a resume that re-hashed the partial file would read it again."""
    namespaces = RoutedNamespaces()
    root = os.path.join(work, "big")
    os.makedirs(root, exist_ok=True)
    size = partial + (512 << 20)
    expected = write_random(os.path.join(root, "big.bin"), size)
    port = namespaces.serve(server_binary, root)
    dest = os.path.join(work, "big.out")
    get = JSONEvents(namespaces, reach, ["--sha256", expected, "-o", dest,
                                         f"http://{namespaces.SERVER}:{port}/big.bin?slow={128 << 20}"])
    get.wait_for(lambda event: event["event"] == "progress" and event["bytes"] >= partial, 0, timeout=120)
    start = len(get.events)
    namespaces.route("add", "wa", 10)
    paused = get.events[get.wait_event("paused", start)]
    time.sleep(0.5)
    on_disk = os.path.getsize(dest + ".part")
    before = get.rchar()
    start = len(get.events)
    namespaces.route("del", "wa", 10)
    get.wait_event("resumed", start)
    # A re-hash would happen at the resume, before the first new byte: sample once the body
    # has moved on. What was read then is the network's bytes (and a few KiB of netlink).
    moved = get.events[get.wait_for(lambda event: event["event"] == "progress" and event["bytes"] >= on_disk + (16 << 20), start)]
    after = get.rchar()
    done = get.events[get.wait_event("done", start, timeout=120)]
    get.process.wait(30)
    network = moved["bytes"] - on_disk
    return {"partial_bytes": on_disk, "bytes": size, "rchar_since_pause": after - before, "network_bytes_since_pause": network,
            "reread_bytes": after - before - network, "refetched": done.get("refetched"), "exit": get.process.returncode,
            "paused_reason": paused.get("reason")}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--reach", default=os.path.join(ROOT, ".build-release/release/reach"))
    parser.add_argument("--server", default=os.path.join(ROOT, ".build-release/release/reach-testserver"))
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--port", type=int, default=18080)
    args = parser.parse_args()
    sizes = [64 << 20, 256 << 20] if args.quick else [256 << 20, 1 << 30]
    work = tempfile.mkdtemp(prefix="reach-bench-get-")
    cleanups.append(lambda: shutil.rmtree(work, ignore_errors=True))
    start_nginx(os.path.join(work, "www"), args.port, work)
    os.makedirs(os.path.join(work, "www"), exist_ok=True)
    rows = throughput(args.reach, work, sizes, 1 if args.quick else args.runs, args.port)
    pause = pausing(args.reach, args.server, work, 3 if args.quick else 5, 4 << 20)
    again = reread(args.reach, args.server, work, (256 << 20) if args.quick else (2 << 30))

    print(f"reach get benchmark  {time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())}  ({'quick' if args.quick else 'full'})")
    print("1 throughput from local nginx (best of runs)")
    print(f"  {'size':>8} {'tool':6} {'MiB/s':>8} {'CPU s':>7} {'peak RSS MiB':>13}")
    summary = {}
    for size in sizes:
        for tool in ("curl", "reach"):
            best = max((r for r in rows if r["tool"] == tool and r["bytes"] == size), key=lambda r: r["mib_per_s"])
            summary[(tool, size)] = best
            print(f"  {size >> 20:>6}Mi {tool:6} {best['mib_per_s']:8.0f} {best['cpu_seconds']:7.2f} {best['peak_rss_mib']:13.1f}"
                  f"{'' if best['ok'] else '  FAILED'}")
    big = sizes[-1]
    ratio = summary[("reach", big)]["mib_per_s"] / summary[("curl", big)]["mib_per_s"]
    rss_growth = summary[("reach", big)]["peak_rss_mib"] - summary[("reach", sizes[0])]["peak_rss_mib"]
    cpu = summary[("reach", big)]["cpu_seconds"] / summary[("curl", big)]["cpu_seconds"]
    print(f"  throughput ratio reach/curl at {big >> 20} MiB: {ratio:.2f} (target >= 0.95: {'met' if ratio >= 0.95 else 'NOT MET'})")
    print(f"  CPU ratio reach/curl at {big >> 20} MiB: {cpu:.2f} (target <= 1.3: {'met' if cpu <= 1.3 else 'NOT MET'})")
    print(f"  reach peak RSS growth from {sizes[0] >> 20} to {big >> 20} MiB: {rss_growth:+.1f} MiB (flat in file size)")
    print(f"2 pausing on a route switch to cellular, {pause['switches']} switches during one {pause['bytes'] >> 20} MiB download")
    print(f"  route command -> paused event: p50 {pause['p50_ms']:.1f} ms, max {pause['max_ms']:.1f} ms")
    print(f"  bytes refetched: {pause['refetched']} (target 0); downloaded {pause['downloaded']} of {pause['bytes']}; "
          f"restarts {pause['restarts']}; sha256 {'ok' if pause['sha256_ok'] else 'MISMATCH'}; exit {pause['exit']}")
    print(f"3 a pause and resume of a {again['partial_bytes'] >> 20} MiB partial in one process")
    print(f"  read since the pause {again['rchar_since_pause'] >> 20} MiB, of which network {again['network_bytes_since_pause'] >> 20} MiB:"
          f" partial re-read {again['reread_bytes'] / (1 << 20):.1f} MiB (target 0; a re-hash would read {again['partial_bytes'] >> 20} MiB);"
          f" refetched {again['refetched']}; exit {again['exit']}")
    os.makedirs(os.path.join(ROOT, "scripts/bench/results"), exist_ok=True)
    out = os.path.join(ROOT, "scripts/bench/results", time.strftime("get-%Y%m%dT%H%M%SZ.json", time.gmtime()))
    with open(out, "w") as handle:
        json.dump({"throughput": rows, "ratio": ratio, "cpu_ratio": cpu, "rss_growth_mib": rss_growth, "pausing": pause,
                   "reread": again}, handle, indent=2)
    print(f"JSON: {out}")


if __name__ == "__main__":
    main()
