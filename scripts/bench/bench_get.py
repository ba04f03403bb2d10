#!/usr/bin/env python3
"""Benchmark `reach get` against curl, and measure pausing on a route switch.

1. Throughput: the same file (1 GiB; --quick: 256 MiB) from a local nginx on 127.0.0.1,
   downloaded by curl, `reach get` and `reach get --show-sha256` (the hash is opt-in), in turn,
   N times each, each after a `sync`. Reports MiB/s, the ratio, CPU seconds and peak RSS
   (ru_maxrss), best and median, for two file sizes to show RSS is flat.
2. Pausing: `reach get --json --no-cellular` in a client namespace downloads a throttled file
   from reach-testserver in a server namespace, reached only by a host route over a "wifi"
   veth, while a cheaper route over a "cellular" veth comes and goes; for each switch to
   cellular, the time from the `ip route` command to the `paused` event. At the end: SHA-256
   of the file, bytes downloaded in total, bytes refetched (target 0).
3. Re-reading: a download paused once 2 GiB (--quick: 256 MiB) are on disk and resumed in the
   same process; the process's `rchar` (/proc/PID/io) from the pause until 16 MiB more have
   arrived, less those network bytes, is what it re-read of the partial file (target 0).
4. Segments: a server that limits each request's rate (nginx `limit_rate`, 32 MiB/s), where
   `reach get --connections 4`, `aria2c -x 4 -s 4` and `curl` download the same file (512 MiB;
   --quick: 256 MiB), in turn, N times each. Reports MiB/s, the ratios to curl and to aria2c,
   CPU seconds, peak RSS, and how many requests each made. nginx lets each request send its
   first second's worth at once (`limit_rate` allows rate x (elapsed + 1 s)), so a client that
   makes more requests gets more than N x the rate: the same three tools are also measured
   against reach-testserver's `slow=`, a per-request throttle without that burst.

Only loopback and the benchmark's own namespace carry traffic; the namespace is deleted and
the servers stopped even on failure. `--scenarios segments` runs one scenario. Prints a table
and writes scripts/bench/results/get-*.json.
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
    """Runs a command; returns (wall seconds, cpu seconds, peak RSS MiB, exit status).

    The peak RSS comes from GNU time when it is there: `ru_maxrss` of a child that Python forked
    counts Python's own pages before the exec (a floor of about 27 MiB for any tool).
    """
    timer = shutil.which("time") or "/usr/bin/time"
    report = None
    if os.path.exists(timer):
        report = tempfile.NamedTemporaryFile(prefix="reach-bench-rss-", delete=False).name
        command = [timer, "-f", "%M", "-o", report, *command]
    start = time.monotonic()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.monotonic() - start
    rss = usage.ru_maxrss / 1024
    if report:
        with open(report) as handle:
            lines = handle.read().split()
        os.remove(report)
        rss = int(lines[-1]) / 1024 if lines and lines[-1].isdigit() else rss
    return wall, usage.ru_utime + usage.ru_stime, rss, os.waitstatus_to_exitcode(status)


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


def start_limited_nginx(root, port, work, rate):
    """nginx with `limit_rate` per request and an access log (one line per request)."""
    conf = os.path.join(work, "nginx-limited.conf")
    log = os.path.join(work, "limited-access.log")
    with open(conf, "w") as out:
        out.write(f"""daemon off; worker_processes 1; pid {work}/nginx-limited.pid; error_log {work}/nginx-limited.err;
events {{ worker_connections 64; }}
http {{ access_log {log}; sendfile on; tcp_nopush on;
  client_body_temp_path {work}; proxy_temp_path {work}; fastcgi_temp_path {work}; uwsgi_temp_path {work}; scgi_temp_path {work};
  server {{ listen 127.0.0.1:{port}; root {root}; limit_rate {rate}; }} }}
""")
    process = subprocess.Popen(["nginx", "-c", conf], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    cleanups.append(lambda: (process.terminate(), process.wait(10)))
    for _ in range(100):
        # Exit 7: nothing listens yet; anything else is an answer.
        if subprocess.run(["curl", "-s", "-o", "/dev/null", f"http://127.0.0.1:{port}/"], timeout=2).returncode != 7:
            break
        time.sleep(0.05)
    return log


def start_testserver(server_binary, root):
    """reach-testserver on 127.0.0.1 (its `slow=` throttles each request without a burst)."""
    server = subprocess.Popen([server_binary, "--root", root, "--port", "0"], stdout=subprocess.PIPE, text=True)
    cleanups.append(lambda: (server.terminate(), server.wait(10)))
    return int(server.stdout.readline().strip().rsplit(":", 1)[1])


def line_count(path):
    if not os.path.exists(path):
        return 0
    with open(path, "rb") as handle:
        return sum(1 for _ in handle)


def segments(reach, work, size, runs, url, access_log, connections=4):
    """`reach get --connections N`, `aria2c -x N -s N` and `curl` on one URL, alternately."""
    out = os.path.join(work, "seg-out")
    os.makedirs(out, exist_ok=True)
    commands = {
        "curl": lambda dest: ["curl", "-sS", "-o", dest, url],
        "aria2c": lambda dest: ["aria2c", "-q", "-x", str(connections), "-s", str(connections), "--allow-overwrite=true",
                                "--auto-file-renaming=false", "-d", os.path.dirname(dest), "-o", os.path.basename(dest), url],
        "reach": lambda dest: [reach, "get", "--connections", str(connections), "-o", dest, url],
    }
    rows = []
    for _ in range(runs):
        for tool, command in commands.items():
            dest = os.path.join(out, f"{tool}.bin")
            for leftover in (dest, dest + ".part", dest + ".part.json", dest + ".aria2"):
                if os.path.exists(leftover):
                    os.remove(leftover)
            subprocess.run(["sync"])
            before = line_count(access_log) if access_log else 0
            wall, cpu, rss, status = run_measured(command(dest))
            time.sleep(0.2)  # nginx writes its access log line as each response ends
            requests = line_count(access_log) - before if access_log else None
            ok = status == 0 and os.path.exists(dest) and os.path.getsize(dest) == size
            rows.append({"tool": tool, "bytes": size, "seconds": wall, "mib_per_s": size / wall / (1 << 20), "cpu_seconds": cpu,
                         "peak_rss_mib": rss, "requests": requests, "ok": ok, "sha256": sha256_file(dest) if ok else None})
            if os.path.exists(dest):
                os.remove(dest)
    return rows


def sha256_file(path):
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(4 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def summarize_segments(rows, label):
    """Prints a table (best run per tool) and the ratios; returns the summary."""
    best = {tool: max((r for r in rows if r["tool"] == tool), key=lambda r: r["mib_per_s"]) for tool in ("curl", "aria2c", "reach")}
    print(f"  {label}")
    print(f"    {'tool':28} {'MiB/s':>8} {'s':>7} {'CPU s':>7} {'peak RSS MiB':>13} {'requests':>9}")
    names = {"curl": "curl", "aria2c": "aria2c -x 4 -s 4", "reach": "reach get --connections 4"}
    for tool in ("curl", "aria2c", "reach"):
        r = best[tool]
        requests = "-" if r["requests"] is None else str(r["requests"])
        print(f"    {names[tool]:28} {r['mib_per_s']:8.1f} {r['seconds']:7.2f} {r['cpu_seconds']:7.2f} {r['peak_rss_mib']:13.1f} {requests:>9}"
              f"{'' if r['ok'] else '  FAILED'}")
    digests = {r["sha256"] for r in rows if r["sha256"]}
    vs_curl = best["reach"]["mib_per_s"] / best["curl"]["mib_per_s"]
    vs_aria = best["reach"]["mib_per_s"] / best["aria2c"]["mib_per_s"]
    print(f"    reach/curl {vs_curl:.2f} (target >= 3.5: {'met' if vs_curl >= 3.5 else 'NOT MET'}), "
          f"reach/aria2c {vs_aria:.2f} (target >= 0.95: {'met' if vs_aria >= 0.95 else 'NOT MET'}); "
          f"files identical: {'yes' if len(digests) == 1 and all(r['ok'] for r in rows) else 'NO'}")
    return {"best": best, "reach_vs_curl": vs_curl, "reach_vs_aria2c": vs_aria, "identical": len(digests) == 1}


THROUGHPUT_TOOLS = ("curl", "reach", "reach --show-sha256")
# `--baseline PATH`: another tree's `reach` in the same alternation, for an A/B in one run.
BASELINE = "baseline reach"


def throughput(reach, work, sizes, runs, port, baseline=None):
    """Each size, each run: curl, `reach get` and `reach get --show-sha256` in turn (each run
    starting with the next tool), each after a `sync`, so no tool pays for the writeback of the
    one before."""
    root = os.path.join(work, "www")
    os.makedirs(root, exist_ok=True)
    results = []
    for size in sizes:
        name = f"file-{size >> 20}M.bin"
        make_file(os.path.join(root, name), size)
        url = f"http://127.0.0.1:{port}/{name}"
        commands = {"curl": ["curl", "-sS", "-o"], "reach": [reach, "get", "-o"], "reach --show-sha256": [reach, "get", "--show-sha256", "-o"]}
        tools = THROUGHPUT_TOOLS
        if baseline:
            commands[BASELINE] = [baseline, "get", "-o"]
            tools = tools + (BASELINE,)
        for run in range(runs):
            # Each run starts with the next tool, so none always follows the same one.
            for tool in tools[run % len(tools):] + tools[:run % len(tools)]:
                dest = os.path.join(work, "out.bin")
                for leftover in (dest, dest + ".part", dest + ".part.json"):
                    if os.path.exists(leftover):
                        os.remove(leftover)
                subprocess.run(["sync"])
                wall, cpu, rss, status = run_measured([*commands[tool], dest, url])
                ok = status == 0 and os.path.exists(dest) and os.path.getsize(dest) == size
                results.append({"tool": tool, "bytes": size, "seconds": wall, "mib_per_s": size / wall / (1 << 20),
                                "cpu_seconds": cpu, "peak_rss_mib": rss, "ok": ok})
                if os.path.exists(dest):
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

    def wait_for(self, accept, after, timeout=20, what="matching"):
        deadline = time.monotonic() + timeout
        with self.condition:
            while True:
                for index in range(after, len(self.events)):
                    if accept(self.events[index]):
                        return index
                left = deadline - time.monotonic()
                if left <= 0:
                    last = self.events[-1]["event"] if self.events else "none"
                    raise TimeoutError(f"{what} (last event {last}, exit status {self.process.poll()})")
                self.condition.wait(left)

    def wait_event(self, kind, after, timeout=20):
        return self.wait_for(lambda event: event["event"] == kind, after, timeout, what=repr(kind))

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


def parse_rate(text):
    units = {"k": 1 << 10, "m": 1 << 20, "g": 1 << 30}
    return int(text[:-1]) * units[text[-1].lower()] if text[-1].lower() in units else int(text)


def report_throughput(rows, sizes):
    runs = sum(1 for r in rows if r["tool"] == "curl" and r["bytes"] == sizes[-1])
    print(f"1 throughput from local nginx (best and median of {runs} runs, tools in turn)")
    print(f"  {'size':>8} {'tool':20} {'MiB/s':>8} {'median':>8} {'CPU s':>7} {'median':>8} {'peak RSS MiB':>13}")
    summary = {}
    tools = THROUGHPUT_TOOLS + ((BASELINE,) if any(r["tool"] == BASELINE for r in rows) else ())
    for size in sizes:
        for tool in tools:
            mine = [r for r in rows if r["tool"] == tool and r["bytes"] == size]
            best = max(mine, key=lambda r: r["mib_per_s"])
            median_rate = sorted(r["mib_per_s"] for r in mine)[len(mine) // 2]
            median_cpu = sorted(r["cpu_seconds"] for r in mine)[len(mine) // 2]
            summary[(tool, size)] = {**best, "median_mib_per_s": median_rate, "median_cpu_seconds": median_cpu}
            print(f"  {size >> 20:>6}Mi {tool:20} {best['mib_per_s']:8.0f} {median_rate:8.0f} {best['cpu_seconds']:7.2f} {median_cpu:8.2f}"
                  f" {best['peak_rss_mib']:13.1f}{'' if all(r['ok'] for r in mine) else '  FAILED'}")
    big = sizes[-1]
    curl, reach, hashed = (summary[(tool, big)] for tool in THROUGHPUT_TOOLS)
    ratio = reach["mib_per_s"] / curl["mib_per_s"]
    median_ratio = reach["median_mib_per_s"] / curl["median_mib_per_s"]
    cpu = reach["cpu_seconds"] / curl["cpu_seconds"]
    median_cpu = reach["median_cpu_seconds"] / curl["median_cpu_seconds"]
    rss_growth = reach["peak_rss_mib"] - summary[("reach", sizes[0])]["peak_rss_mib"]
    print(f"  throughput ratio reach/curl at {big >> 20} MiB: best {ratio:.2f}, median {median_ratio:.2f} "
          f"(target >= 1.2: {'met' if median_ratio >= 1.2 else 'NOT MET'})")
    print(f"  CPU ratio reach/curl at {big >> 20} MiB: best runs {cpu:.2f}, medians {median_cpu:.2f} "
          f"(target <= 0.8: {'met' if median_cpu <= 0.8 else 'NOT MET'})")
    extra = {}
    if (BASELINE, big) in summary:
        base = summary[(BASELINE, big)]
        extra = {"baseline_median_ratio": base["median_mib_per_s"] / curl["median_mib_per_s"],
                 "baseline_median_cpu_ratio": base["median_cpu_seconds"] / curl["median_cpu_seconds"]}
        print(f"  baseline reach/curl at {big >> 20} MiB (medians): throughput {extra['baseline_median_ratio']:.2f}, "
              f"CPU {extra['baseline_median_cpu_ratio']:.2f}; this tree {median_ratio:.2f} and {median_cpu:.2f}")
    print(f"  with --show-sha256: throughput {hashed['mib_per_s'] / curl['mib_per_s']:.2f}x curl, CPU "
          f"{hashed['median_cpu_seconds'] / curl['median_cpu_seconds']:.2f}x (medians; the hash is opt-in)")
    print(f"  reach peak RSS growth from {sizes[0] >> 20} to {big >> 20} MiB: {rss_growth:+.1f} MiB (flat in file size)")
    return {"throughput": rows, "ratio": ratio, "median_ratio": median_ratio, "cpu_ratio": cpu, "median_cpu_ratio": median_cpu,
            "hashed_ratio": hashed["mib_per_s"] / curl["mib_per_s"], "rss_growth_mib": rss_growth, **extra}


def report_pausing(pause):
    if "error" in pause:
        print(f"2 pausing on a route switch to cellular: FAILED: {pause['error']}")
        return
    print(f"2 pausing on a route switch to cellular, {pause['switches']} switches during one {pause['bytes'] >> 20} MiB download")
    print(f"  route command -> paused event: p50 {pause['p50_ms']:.1f} ms, max {pause['max_ms']:.1f} ms")
    print(f"  bytes refetched: {pause['refetched']} (target 0); downloaded {pause['downloaded']} of {pause['bytes']}; "
          f"restarts {pause['restarts']}; sha256 {'ok' if pause['sha256_ok'] else 'MISMATCH'}; exit {pause['exit']}")


def report_reread(again):
    if "error" in again:
        print(f"3 a pause and resume in one process: FAILED: {again['error']}")
        return
    print(f"3 a pause and resume of a {again['partial_bytes'] >> 20} MiB partial in one process")
    print(f"  read since the pause {again['rchar_since_pause'] >> 20} MiB, of which network {again['network_bytes_since_pause'] >> 20} MiB:"
          f" partial re-read {again['reread_bytes'] / (1 << 20):.1f} MiB (target 0; a re-hash would read {again['partial_bytes'] >> 20} MiB);"
          f" refetched {again['refetched']}; exit {again['exit']}")


def run_segments(args, work):
    """Scenario 3: the same file behind nginx `limit_rate`, then behind reach-testserver `slow=`."""
    size = (256 if args.quick else 512) << 20
    root = os.path.join(work, "seg-www")
    os.makedirs(root, exist_ok=True)
    make_file(os.path.join(root, "seg.bin"), size)
    runs = 1 if args.quick else args.runs
    access_log = start_limited_nginx(root, args.port + 1, work, args.rate)
    limited = segments(args.reach, work, size, runs, f"http://127.0.0.1:{args.port + 1}/seg.bin", access_log)
    rate_bytes = parse_rate(args.rate)
    server_port = start_testserver(args.server, root)
    throttled = segments(args.reach, work, size, runs, f"http://127.0.0.1:{server_port}/seg.bin?slow={rate_bytes}", None)
    return {"rate": args.rate, "bytes": size, "runs": runs, "limited": limited, "throttled": throttled, "rate_bytes": rate_bytes}


def report_segments(result):
    print(f"4 segments: {result['bytes'] >> 20} MiB, each request limited to {result['rate']}B/s (best of {result['runs']})")
    return {"rate": result["rate"], "bytes": result["bytes"],
            "nginx_limit_rate": {"runs": result["limited"],
                                 "summary": summarize_segments(result["limited"], f"nginx limit_rate {result['rate']} (bursts 1 s per request)")},
            "testserver_slow": {"runs": result["throttled"],
                                "summary": summarize_segments(result["throttled"], f"reach-testserver slow={result['rate_bytes']} (no burst)")}}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--reach", default=os.path.join(ROOT, ".build-release/release/reach"))
    parser.add_argument("--server", default=os.path.join(ROOT, ".build-release/release/reach-testserver"))
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--baseline", help="another tree's `reach` (its get) measured in the same alternation")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--port", type=int, default=18080)
    parser.add_argument("--rate", default="32m", help="per-request rate limit of the segments scenario (nginx syntax)")
    parser.add_argument("--scenarios", default="throughput,pausing,reread,segments",
                        help="comma-separated, of: throughput, pausing, reread, segments")
    args = parser.parse_args()
    scenarios = set(args.scenarios.split(","))
    sizes = [64 << 20, 256 << 20] if args.quick else [256 << 20, 1 << 30]
    work = tempfile.mkdtemp(prefix="reach-bench-get-")
    cleanups.append(lambda: shutil.rmtree(work, ignore_errors=True))
    rows = pause = again = segment_result = None
    if "throughput" in scenarios:
        start_nginx(os.path.join(work, "www"), args.port, work)
        os.makedirs(os.path.join(work, "www"), exist_ok=True)
        rows = throughput(args.reach, work, sizes, 1 if args.quick else args.runs, args.port, args.baseline)
    if "pausing" in scenarios:
        try:
            pause = pausing(args.reach, args.server, work, 3 if args.quick else 5, 4 << 20)
        except TimeoutError as error:
            pause = {"error": f"no {error} event in time"}
    if "reread" in scenarios:
        try:
            again = reread(args.reach, args.server, work, (256 << 20) if args.quick else (2 << 30))
        except TimeoutError as error:
            again = {"error": f"no {error} event in time"}
    if "segments" in scenarios:
        segment_result = run_segments(args, work)

    print(f"reach get benchmark  {time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())}  ({'quick' if args.quick else 'full'})")
    results = {}
    if rows is not None:
        results.update(report_throughput(rows, sizes))
    if pause is not None:
        report_pausing(pause)
        results["pausing"] = pause
    if again is not None:
        report_reread(again)
        results["reread"] = again
    if segment_result is not None:
        results["segments"] = report_segments(segment_result)
    os.makedirs(os.path.join(ROOT, "scripts/bench/results"), exist_ok=True)
    out = os.path.join(ROOT, "scripts/bench/results", time.strftime("get-%Y%m%dT%H%M%SZ.json", time.gmtime()))
    with open(out, "w") as handle:
        json.dump(results, handle, indent=2)
    print(f"JSON: {out}")
    if any(result is not None and "error" in result for result in (pause, again)):
        sys.exit(1)


if __name__ == "__main__":
    main()
