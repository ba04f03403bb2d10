"""The daemon at scale (scenarios `scale` and `burst` of bench_daemon.py).

scale: the daemon runs in a network namespace of its own with two veth uplinks (their peers in
the same namespace), d0 (overridden as cellular, the default route) and d1 (overridden as
Wi-Fi), with the 1,024 descriptors systemd gives a service (its soft limit). N downloads
(1,000, then 10,000) that may only run on a wired network are added, so they all wait in the
engine, each judged by the route to its server (10.9.9.9, inside the namespace; nothing is ever
sent). Measured: each add's round trip, one client after another and from 8 clients at once
(group commit); GET /v1/jobs?view=summary (p50/p99); the daemon's CPU time (utime+stime) over 3
s after each of 6 path changes (d1's default route added, then removed), less the same window
idle, then over 4 more with one /v1/events client reading (and the job lines it got); its RSS and open descriptors; its CPU time per add (one client, all threads). The peer,
in the same run and on the same file system: the floor of a durable add, the same row and
history row inserted by Python's sqlite3 in one transaction each, with the daemon's schema and
settings (WAL, synchronous=FULL, checkpoints on a second connection every 16 commits): no HTTP,
no JSON, no engine; and the floor of the control API, an add the daemon refuses (400, a download
without its download object) on the same connection: HTTP, JSON and the check, no store and no
engine. The add's own cost is its round trip less both floors.

Targets (issue #19): add <= 2 ms each, summary list p99 <= 50 ms, a path change with
10,000 waiting jobs <= 100 ms of CPU (1,000: <= 20 ms).

burst: 4,000 small downloads (16 KiB, reach-testserver on loopback) held by one shared
notBefore are released at once (--per-host 8, --max-running 16). Measured: from the last file
renamed into place (its mtime) to every job shown `succeeded` by the API (polled every 50 ms).
Target: <= 5 s.
"""
import concurrent.futures, datetime, json, os, shutil, socket, sqlite3, statistics, subprocess, threading, time

import bench_daemon as base

NS = "reach-bench-scale"


def ns(*command, check=True):
    return subprocess.run(["ip", "netns", "exec", NS, *command], check=check, capture_output=True, text=True)


def make_namespace():
    subprocess.run(["ip", "netns", "del", NS], capture_output=True)
    subprocess.run(["ip", "netns", "add", NS], check=True)
    base.cleanups.append(lambda: subprocess.run(["ip", "netns", "del", NS], capture_output=True))
    for name, address in (("d0", "10.9.0.2/24"), ("d1", "10.9.1.2/24")):
        ns("ip", "link", "add", name, "type", "veth", "peer", "name", name + "p")  # no dummy module on every kernel
        ns("ip", "link", "set", name + "p", "up")
        ns("ip", "addr", "add", address, "dev", name)
        ns("ip", "link", "set", name, "up")
    ns("ip", "link", "set", "lo", "up")
    ns("ip", "route", "add", "default", "via", "10.9.0.1", "dev", "d0", "metric", "100")


def wired_job(work, index):
    return {"workingDirectory": work, "job": {
        "kind": "download", "constraints": {"when": "wired"},
        "download": {"url": f"http://10.9.9.9:9/scale/{index}.bin", "destination": os.path.join(work, "scale", f"{index}.bin")}}}


def cpu_ticks(pid):
    with open(f"/proc/{pid}/stat") as handle:
        fields = handle.read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])


def rss_mib(pid):
    with open(f"/proc/{pid}/status") as handle:
        return int(next(line for line in handle if line.startswith("VmRSS:")).split()[1]) / 1024


def cpu_ms(pid):
    """The process's CPU time so far (utime+stime, all threads), in milliseconds."""
    return cpu_ticks(pid) * 1000 / os.sysconf("SC_CLK_TCK")


def cpu_ms_over(pid, seconds):
    before = cpu_ms(pid)
    time.sleep(seconds)
    return cpu_ms(pid) - before


CHECKPOINT_EVERY = 16  # the daemon's QueueCheckpointer.commitsPerCheckpoint


def sqlite_floor(work, count):
    """Seconds of each of `count` durable inserts of a job row and its history row (the
    daemon's schema, reduced to what an add writes) in a fresh database under `work`, with the
    daemon's settings: the writer checkpoints only past 240 pages of log, and a second
    connection on a thread of its own checkpoints (PASSIVE) every 16 commits."""
    path = os.path.join(work, "floor.sqlite")
    db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    for pragma in ("journal_mode = WAL", "synchronous = FULL", "wal_autocheckpoint = 240", "journal_size_limit = 1048576"):
        db.execute(f"PRAGMA {pragma}")
    db.execute("CREATE TABLE job (id INTEGER PRIMARY KEY AUTOINCREMENT, spec TEXT NOT NULL, hasSecrets INTEGER, state TEXT NOT NULL, "
               "reasonCode TEXT, reasonMessage TEXT, reasonUntil REAL, createdAt REAL, updatedAt REAL)")
    db.execute("CREATE TABLE history (id INTEGER PRIMARY KEY AUTOINCREMENT, jobID INTEGER NOT NULL, at REAL NOT NULL, state TEXT NOT NULL, reason TEXT)")
    db.execute("CREATE INDEX history_job ON history (jobID)")
    due = threading.Event()
    stop = threading.Event()

    def checkpointer():
        connection = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        connection.execute("PRAGMA synchronous = FULL")
        while not stop.is_set():
            if due.wait(0.1):
                due.clear()
                for _ in range(4):  # until it has caught up, as the daemon's does
                    _, logged, copied = connection.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
                    if copied >= logged:
                        break
        connection.close()

    thread = threading.Thread(target=checkpointer, daemon=True)
    thread.start()
    times = []
    for index in range(count):
        spec = json.dumps(wired_job(work, index)["job"])
        started = time.perf_counter()
        db.execute("BEGIN IMMEDIATE")
        now = time.time()
        cursor = db.execute("INSERT INTO job (spec, hasSecrets, state, createdAt, updatedAt) VALUES (?, 0, 'pending', ?, ?)", (spec, now, now))
        db.execute("INSERT INTO history (jobID, at, state, reason) VALUES (?, ?, 'pending', 'added')", (cursor.lastrowid, now))
        db.execute("COMMIT")
        times.append(time.perf_counter() - started)
        if (index + 1) % CHECKPOINT_EVERY == 0:
            due.set()
    stop.set()
    thread.join()
    db.close()
    for suffix in ("", "-wal", "-shm"):
        try:
            os.unlink(path + suffix)
        except FileNotFoundError:
            pass
    return times


def api_floor(sock, work, count):
    """Seconds of each of `count` adds the daemon refuses with 400 (nothing is stored)."""
    api = base.API(sock)
    refused = {"workingDirectory": work, "job": {"kind": "download", "constraints": {"when": "wired"}}}
    times = [base.timed(api, "POST", "/v1/jobs", refused, expect=400)[0] for _ in range(count)]
    api.close()
    return times


def add_all(sock, work, start, count, clients):
    """Adds jobs start..<start+count from `clients` connections; returns each add's seconds."""
    times = []
    lock = threading.Lock()

    def worker(indices):
        api = base.API(sock)
        mine = []
        for index in indices:
            elapsed, _ = base.timed(api, "POST", "/v1/jobs", wired_job(work, index), expect=201)
            mine.append(elapsed)
        api.close()
        with lock:
            times.extend(mine)

    chunks = [list(range(start + offset, start + count, clients)) for offset in range(clients)]
    with concurrent.futures.ThreadPoolExecutor(clients) as pool:
        for future in [pool.submit(worker, chunk) for chunk in chunks]:
            future.result()
    return times


def wait_all_waiting(sock, total, timeout=300):
    api = base.API(sock)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        _, data = api.call("GET", "/v1/jobs?state=paused&view=summary")
        jobs = json.loads(data)["jobs"]
        if sum(1 for job in jobs if (job.get("reason") or {}).get("code") == "queuedForWired") >= total:
            api.close()
            return
        time.sleep(0.2)
    api.close()
    raise RuntimeError(f"the jobs did not all wait for a wired network within {timeout} s")


def path_changes(pid, rounds=6, window=3.0):
    """CPU per change: d1 (Wi-Fi) gains and loses a better default route, alternately."""
    idle = [cpu_ms_over(pid, window) for _ in range(2)]
    changes = []
    for round_index in range(rounds):
        if round_index % 2 == 0:
            ns("ip", "route", "add", "default", "via", "10.9.1.1", "dev", "d1", "metric", "10")
        else:
            ns("ip", "route", "del", "default", "via", "10.9.1.1", "dev", "d1", "metric", "10")
        changes.append(cpu_ms_over(pid, window))
    floor = min(idle)
    return {"idle_ms_per_window": idle, "window_s": window, "change_ms": [max(0.0, value - floor) for value in changes],
            "change_ms_median": statistics.median(max(0.0, value - floor) for value in changes)}


class EventsReader:
    """A /v1/events client that reads as fast as it can (as `reach queue watch` does) and counts
    the job lines it got."""

    def __init__(self, sock):
        self.connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.connection.connect(sock)
        self.connection.sendall(b"GET /v1/events HTTP/1.1\r\nHost: reach\r\n\r\n")
        self.job_lines = 0
        self.thread = threading.Thread(target=self.read, daemon=True)
        self.thread.start()

    def read(self):
        while True:
            try:
                data = self.connection.recv(1 << 16)
            except OSError:
                return
            if not data:
                return
            self.job_lines += data.count(b'"type":"job"')

    def close(self):
        self.connection.shutdown(socket.SHUT_RDWR)
        self.connection.close()
        self.thread.join(5)


def watched_path_changes(pid, sock, rounds=4):
    """path_changes with one event-stream client connected: what a path change costs while
    somebody runs `reach queue watch` or `reach queue wait`."""
    reader = EventsReader(sock)
    time.sleep(1)
    before = reader.job_lines
    result = path_changes(pid, rounds=rounds)
    time.sleep(1)
    result["job_lines_per_change"] = (reader.job_lines - before) / rounds
    reader.close()
    return result


SERVICE_DESCRIPTORS = 1024


class NamespacedDaemon(base.Daemon):
    """The daemon inside the scenario's namespace, with the 1,024 descriptors systemd gives a
    service (its soft limit): `ip netns exec` and `prlimit` exec it, so the pid is its own."""

    def argv(self):
        return ["ip", "netns", "exec", NS, "prlimit", f"--nofile={SERVICE_DESCRIPTORS}:", *super().argv()]


def open_descriptors(pid):
    return len(os.listdir(f"/proc/{pid}/fd"))


def scale_scenario(args, work):
    make_namespace()
    os.makedirs(os.path.join(work, "scale"), exist_ok=True)
    daemon = NamespacedDaemon(
        args.daemon, os.path.join(work, "state-scale"), os.path.join(work, "scale.sock"), os.path.join(work, "daemon-scale.log"),
        extra=["--override", "d0=cellular", "--override", "d1=wifi", "--max-running", "16"])
    daemon.start()
    sock = daemon.socket
    results = {"sizes": []}
    added = 0
    for total in (1000, args.scale_jobs):
        step = {"jobs": total}
        count = total - added
        sequential = count // 2
        step["sqlite_floor"] = base.summary_ms(sqlite_floor(work, sequential))
        step["api_floor"] = base.summary_ms(api_floor(sock, work, sequential))
        cpu_before = cpu_ms(daemon.pid)
        step["add_sequential"] = base.summary_ms(add_all(sock, work, added, sequential, 1))
        # The daemon's CPU per add, on every thread (the engine taking the job up included):
        # on 2 cores shared with the client, what bounds an add's round trip.
        step["cpu_ms_per_add"] = (cpu_ms(daemon.pid) - cpu_before) / sequential
        step["add_8_clients"] = base.summary_ms(add_all(sock, work, added + sequential, count - sequential, 8))
        added = total
        wait_all_waiting(sock, total)
        api = base.API(sock)
        lists = [base.timed(api, "GET", "/v1/jobs?view=summary")[0] for _ in range(30)]
        api.close()
        step["list_summary"] = base.summary_ms(lists)
        step["path_change"] = path_changes(daemon.pid)
        step["path_change_watched"] = watched_path_changes(daemon.pid, sock)
        step["rss_mib"] = rss_mib(daemon.pid)
        step["descriptors"] = open_descriptors(daemon.pid)
        results["sizes"].append(step)
    results["stop_status"] = daemon.stop()
    results["log_tail"] = daemon.tail()
    return results


def burst_scenario(args, work):
    root = os.path.join(work, "burst-root")
    os.makedirs(root, exist_ok=True)
    with open(os.path.join(root, "small.bin"), "wb") as handle:
        handle.write(os.urandom(16 * 1024))
    _, port = base.start_listening([args.server, "--root", root, "--port", "0"], "reach-testserver")
    out = os.path.join(work, "burst")
    os.makedirs(out, exist_ok=True)
    state = os.path.join(work, "state-burst")
    sock = os.path.join(work, "burst.sock")
    daemon = base.Daemon(args.daemon, state, sock, os.path.join(work, "daemon-burst.log"),
                         extra=["--per-host", "8", "--max-running", "16"])
    daemon.start()
    count = args.burst_jobs
    hold = datetime.timedelta(seconds=max(20, count / 150) + 1)
    release = (datetime.datetime.now(datetime.timezone.utc) + hold).replace(microsecond=0)
    api = base.API(sock)
    for index in range(count):
        base.timed(api, "POST", "/v1/jobs", {"workingDirectory": work, "job": {
            "kind": "download", "notBefore": base.iso(release),
            "download": {"url": f"http://127.0.0.1:{port}/small.bin", "destination": os.path.join(out, f"{index}.bin")}}}, expect=201)
    remaining = (release - datetime.datetime.now(datetime.timezone.utc)).total_seconds()
    if remaining < 1:
        raise RuntimeError("adding the jobs took longer than the hold: raise the hold")
    time.sleep(remaining)
    deadline = time.monotonic() + 600
    all_shown = None
    while time.monotonic() < deadline:
        _, data = api.call("GET", "/v1/jobs?state=succeeded&view=summary")
        if len(json.loads(data)["jobs"]) >= count:
            all_shown = time.time()
            break
        time.sleep(0.05)
    api.close()
    if all_shown is None:
        raise RuntimeError("not every job was shown succeeded within 600 s")
    last_file = max(os.stat(os.path.join(out, f"{index}.bin")).st_mtime for index in range(count))
    first_file = min(os.stat(os.path.join(out, f"{index}.bin")).st_mtime for index in range(count))
    result = {"jobs": count, "files_seconds": last_file - first_file, "shown_after_last_file_s": all_shown - last_file,
              "rss_mib": rss_mib(daemon.pid), "stop_status": daemon.stop()}
    return result


def report_scale(r):
    print("scale (waiting downloads, judged by the route to their server)")
    print(f"  {'jobs':>6} {'add 1 client p50/p99 ms':>24} {'sqlite floor p50/p99':>21} {'API floor p50/p99':>18} {'add 8 clients p50/p99':>22} {'summary list p50/p99':>21} {'CPU per path change ms':>23} {'RSS MiB':>8}")
    for step in r["sizes"]:
        one, eight, lists = step["add_sequential"], step["add_8_clients"], step["list_summary"]
        # Older result files have no peers.
        unmeasured = {"p50_ms": float("nan"), "p99_ms": float("nan")}
        floor, api = step.get("sqlite_floor") or unmeasured, step.get("api_floor") or unmeasured
        change = step["path_change"]
        print(f"  {step['jobs']:>6} {one['p50_ms']:>12.2f} / {one['p99_ms']:<9.2f} {floor['p50_ms']:>9.2f} / {floor['p99_ms']:<9.2f} {api['p50_ms']:>7.2f} / {api['p99_ms']:<8.2f} "
              f"{eight['p50_ms']:>10.2f} / {eight['p99_ms']:<9.2f} "
              f"{lists['p50_ms']:>9.1f} / {lists['p99_ms']:<9.1f} {change['change_ms_median']:>12.0f} (median) {step['rss_mib']:>8.1f}")
        print(f"         per change: {', '.join(f'{value:.0f}' for value in change['change_ms'])} ms over {change['window_s']:.0f} s windows"
              f" (idle floor {min(change['idle_ms_per_window']):.0f} ms)")
        if "path_change_watched" in step:
            watched = step["path_change_watched"]
            print(f"         with one /v1/events client: {watched['change_ms_median']:.0f} ms per change (median; "
                  f"{', '.join(f'{value:.0f}' for value in watched['change_ms'])}), {watched['job_lines_per_change']:.0f} job lines per change")
        if "descriptors" in step:
            print(f"         descriptors open: {step['descriptors']} (limit {SERVICE_DESCRIPTORS}, as systemd gives a service)")
        if "cpu_ms_per_add" in step:
            print(f"         daemon CPU per add (1 client, all threads): {step['cpu_ms_per_add']:.2f} ms")


def report_burst(r):
    print(f"burst: {r['jobs']} downloads released at once: files done in {r['files_seconds']:.1f} s; "
          f"all shown succeeded {r['shown_after_last_file_s']:.2f} s after the last file (target <= 5 s); RSS {r['rss_mib']:.1f} MiB")
