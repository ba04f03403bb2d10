#!/usr/bin/env python3
"""Benchmark `reach daemon`: kill -9 reliability, API latency, idle cost, a full file system, scale.

1. kill -9: a daemon runs 5 downloads (20-40 MiB each, reach-testserver `slow=` 1 MiB/s per
   request, each with --sha256) and 2 uploads (a plain PUT of 10 MiB and a tus upload of
   16 MiB to upload_sink.py, which reads 640 KiB/s per request); 20 times, after a random
   0.5-3 s, the daemon is killed with SIGKILL and started again on the same state directory and
   socket. Then `reach queue wait --all`. Reports jobs succeeded, SHA-256 of every file
   (destination vs source; the sink's copy vs source), jobs lost, jobs run twice (two
   `succeeded` in a job's history, or requests for a file after its job was seen succeeded),
   downloads fetched from byte 0 again (GETs without Range after the first; those after the
   job had reported progress), bytes re-fetched per kill (bytes served minus file sizes, over
   the kills), full re-sends of the uploads (PUTs after the first: expected; tus re-creations
   or PATCHes from 0: not), `PRAGMA integrity_check` of a copy of the database taken right
   after each kill and of the database after the final graceful stop, and the time from a
   restart to the API answering. The daemon runs with --per-host 8 so all 7 jobs (one host,
   127.0.0.1) run at once.
2. API latency: 1,000 downloads queued with notBefore in 10 days (never run), then over one
   keep-alive connection on the Unix socket: POST /v1/jobs (enqueue, includes the fsync),
   GET /v1/jobs/{id}, GET /v1/path, POST pause and resume (pairs), GET /v1/jobs (all 1,000),
   and the end-to-end time of `reach-daemon queue list` (hyperfine when installed). Targets:
   round trip p99 <= 5 ms, list <= 50 ms.
3. Idle: the daemon's CPU time (utime+stime of /proc/PID/stat, and the threads' schedstat run
   time) and context switches (voluntary + involuntary, summed over its threads: wakeups)
   over 10 s with nothing to do, with 0 jobs and with the 1,000 held jobs; VmRSS of both.
   The floor is 1 wakeup a second: any Swift process on Linux that has run a Task wakes once a
   second on libdispatch's manager thread (a timerfd re-armed, no work done); 10 per 10 s and
   about 0 CPU is that floor, not polling.
4. Full file system: the state directory on a 2 MiB tmpfs; jobs are added, a file fills the
   rest, jobs are added until one is refused. Then: the CLI's exit status and message, the
   API's status (507 expected) and message, `list` (every accepted job shown), the daemon
   alive, adding again after the space is freed, integrity_check after the daemon stopped.

5. scale and burst (daemon_scale.py): 10,000 waiting jobs (adds, the summary list, CPU per path
   change, RSS) and 4,000 downloads released at once (how soon after the last file all are shown
   succeeded).

Only loopback carries traffic (the scale scenario's daemon runs in a namespace of its own whose
uplinks are veth pairs ending in it: nothing leaves it). Every process, mount and temporary directory is removed on every
exit path. Prints a table and writes scripts/bench/results/daemon-*.json.
"""
import argparse, atexit, datetime, hashlib, http.client, json, os, random, shutil, signal, socket, sqlite3, statistics
import subprocess, sys, tempfile, time, traceback

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HERE = os.path.dirname(os.path.abspath(__file__))
MiB = 1 << 20
cleanups = []


def cleanup():
    while cleanups:
        try:
            cleanups.pop()()
        except Exception as error:  # keep cleaning
            print(f"cleanup: {error}", file=sys.stderr)


atexit.register(cleanup)
for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
    signal.signal(sig, lambda *_: sys.exit(130))


def load():
    with open("/proc/loadavg") as handle:
        return [float(x) for x in handle.read().split()[:3]]


def uptime_text():
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


def percentile(values, q):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else None


def summary_ms(seconds):
    ms = [s * 1000 for s in seconds]
    return {"n": len(ms), "p50_ms": percentile(ms, 0.5), "p99_ms": percentile(ms, 0.99), "max_ms": max(ms) if ms else None,
            "mean_ms": statistics.fmean(ms) if ms else None,
            "slowest": sorted(((round(v, 2), i) for i, v in enumerate(ms)), reverse=True)[:5]}


def write_random(path, size):
    digest = hashlib.sha256()
    with open(path, "wb") as out:
        left = size
        while left:
            chunk = os.urandom(min(MiB, left))
            out.write(chunk)
            digest.update(chunk)
            left -= len(chunk)
    return digest.hexdigest()


def sha256_file(path):
    if not os.path.exists(path):
        return None
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(4 * MiB), b""):
            digest.update(block)
    return digest.hexdigest()


def read_json_lines(path):
    if not os.path.exists(path):
        return []
    with open(path) as handle:
        return [json.loads(line) for line in handle if line.strip()]


def stop_process(process, timeout=10):
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def start_listening(command, name):
    """Starts a server that prints `listening on HOST:PORT`; returns (process, port)."""
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True)
    cleanups.append(lambda: stop_process(process))
    line = process.stdout.readline().strip()
    if not line.startswith("listening on"):
        raise RuntimeError(f"{name} did not start: {line!r}")
    return process, int(line.rsplit(":", 1)[1])


class UnixConnection(http.client.HTTPConnection):
    """http.client over the daemon's Unix socket (keep-alive)."""

    def __init__(self, path, timeout=30):
        super().__init__("localhost", timeout=timeout)
        self.socket_path = path

    def connect(self):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(self.timeout)
        self.sock.connect(self.socket_path)


class API:
    """One keep-alive connection; reconnects once when the daemon closed it."""

    def __init__(self, path, timeout=30):
        self.path = path
        self.timeout = timeout
        self.connection = UnixConnection(path, timeout)

    def call(self, method, target, body=None):
        payload = None if body is None else json.dumps(body).encode()
        headers = {"Content-Type": "application/json"} if payload is not None else {}
        for attempt in (0, 1):
            try:
                self.connection.request(method, target, body=payload, headers=headers)
                response = self.connection.getresponse()
                return response.status, response.read()
            except (http.client.RemoteDisconnected, BrokenPipeError, ConnectionResetError, http.client.CannotSendRequest):
                self.connection.close()
                self.connection = UnixConnection(self.path, self.timeout)
                if attempt:
                    raise

    def json(self, method, target, body=None):
        status, data = self.call(method, target, body)
        return status, json.loads(data) if data else None

    def close(self):
        self.connection.close()


class Daemon:
    """`reach-daemon daemon` on a state directory and socket; started again at will."""

    def __init__(self, binary, state, socket_path, log, extra=()):
        self.binary, self.state, self.socket, self.log, self.extra = binary, state, socket_path, log, list(extra)
        self.process = None
        cleanups.append(self.kill)

    def argv(self):
        return [self.binary, "daemon", "--state-dir", self.state, "--socket", self.socket, *self.extra]

    def start(self, timeout=30):
        """Starts it; returns the seconds until GET /v1/path answered."""
        started = time.monotonic()
        with open(self.log, "a") as log:
            self.process = subprocess.Popen(self.argv(), stdout=log, stderr=log, stdin=subprocess.DEVNULL)
        deadline = started + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the daemon exited with {self.process.returncode}; log: {self.tail()}")
            try:
                api = API(self.socket, timeout=2)
                status, _ = api.call("GET", "/v1/path")
                api.close()
                if status == 200:
                    return time.monotonic() - started
            except (OSError, http.client.HTTPException):
                pass
            time.sleep(0.005)
        raise RuntimeError(f"the daemon did not answer within {timeout} s; log: {self.tail()}")

    @property
    def pid(self):
        return self.process.pid

    def alive(self):
        return self.process is not None and self.process.poll() is None

    def kill9(self):
        os.kill(self.process.pid, signal.SIGKILL)
        self.process.wait()

    def stop(self, timeout=30):
        """SIGTERM (graceful: checkpoints); returns the exit status."""
        if not self.alive():
            return self.process.returncode if self.process else None
        self.process.terminate()
        try:
            return self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            return "killed after SIGTERM timeout"

    def kill(self):
        if self.alive():
            self.process.kill()
            self.process.wait()

    def tail(self, lines=20):
        if not os.path.exists(self.log):
            return ""
        with open(self.log, errors="replace") as handle:
            return "".join(handle.readlines()[-lines:])


def cli(binary, socket_path, *arguments, timeout=60):
    """`reach-daemon queue --socket S …`: (exit status, stdout, stderr, seconds)."""
    started = time.monotonic()
    result = subprocess.run([binary, "queue", "--socket", socket_path, *arguments], capture_output=True, text=True, timeout=timeout)
    return result.returncode, result.stdout, result.stderr, time.monotonic() - started


def integrity_check(database):
    result = subprocess.run(["sqlite3", database, "PRAGMA integrity_check"], capture_output=True, text=True)
    return (result.stdout.strip() or result.stderr.strip()) or f"exit {result.returncode}"


def integrity_of_copy(state, scratch):
    """integrity_check of a copy of queue.sqlite with its -wal and -shm, as the kill left them."""
    os.makedirs(scratch, exist_ok=True)
    for suffix in ("", "-wal", "-shm"):
        source = os.path.join(state, "queue.sqlite" + suffix)
        target = os.path.join(scratch, "queue.sqlite" + suffix)
        if os.path.exists(target):
            os.remove(target)
        if os.path.exists(source):
            shutil.copyfile(source, target)
    answer = integrity_check(os.path.join(scratch, "queue.sqlite"))
    shutil.rmtree(scratch, ignore_errors=True)
    return answer


def iso(moment):
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


# MARK: 1 kill -9


def kill_scenario(args, work):
    quick = args.quick
    kills = args.kills
    www, src, sink_root = (os.path.join(work, name) for name in ("www", "src", "sink"))
    out = os.path.join(work, "out")
    for directory in (www, src, sink_root, out):
        os.makedirs(directory, exist_ok=True)
    download_rate = MiB
    sink_rate = 640 * 1024
    sizes = [8, 10, 12, 14, 16] if quick else [20, 25, 30, 35, 40]
    downloads = []
    for index, size in enumerate(sizes):
        name = f"dl-{index}-{size}M.bin"
        downloads.append({"name": name, "bytes": size * MiB, "sha256": write_random(os.path.join(www, name), size * MiB),
                          "dest": os.path.join(out, name)})
    uploads = []
    for mode, size in (("put", 4 if quick else 10), ("tus", 6 if quick else 16)):
        name = f"up-{mode}-{size}M.bin"
        uploads.append({"name": name, "mode": mode, "bytes": size * MiB, "sha256": write_random(os.path.join(src, name), size * MiB),
                        "file": os.path.join(src, name)})

    server_log = os.path.join(work, "testserver.log")
    sink_log = os.path.join(work, "sink.log")
    _, server_port = start_listening([args.server, "--root", www, "--port", "0", "--log", server_log], "reach-testserver")
    _, sink_port = start_listening([sys.executable, os.path.join(HERE, "upload_sink.py"), "--root", sink_root, "--rate", str(sink_rate),
                                    "--log", sink_log], "upload_sink.py")

    state = os.path.join(work, "state-kill")
    sock = os.path.join(work, "kill.sock")
    daemon = Daemon(args.daemon, state, sock, os.path.join(work, "daemon-kill.log"), ["--per-host", "8"])
    first_start = daemon.start()

    jobs = {}
    for item in downloads:
        url = f"http://127.0.0.1:{server_port}/{item['name']}?slow={download_rate}"
        status, stdout, stderr, _ = cli(args.daemon, sock, "add", "get", url, "-o", item["dest"], "--sha256", item["sha256"])
        if status != 0:
            raise RuntimeError(f"queue add get failed ({status}): {stderr}")
        item["id"] = int(stdout.strip())
        jobs[item["id"]] = item
    for item in uploads:
        url = f"http://127.0.0.1:{sink_port}/{item['mode']}/{item['name']}"
        status, stdout, stderr, _ = cli(args.daemon, sock, "add", "upload", item["file"], url)
        if status != 0:
            raise RuntimeError(f"queue add upload failed ({status}): {stderr}")
        item["id"] = int(stdout.strip())
        jobs[item["id"]] = item

    rng = random.Random(args.seed)
    restarts, integrity_after_kill, snapshots = [], [], []
    first_progress = {}  # job id -> monotonic µs of the first snapshot with completedBytes > 0
    seen_succeeded = {}  # job id -> (monotonic µs, server log lines for its file at that time)
    phase_started = time.monotonic()

    def snapshot():
        try:
            api = API(sock, timeout=5)
            status, body = api.json("GET", "/v1/jobs")
            api.close()
        except (OSError, http.client.HTTPException, ValueError):
            return None
        if status != 200:
            return None
        now_us = time.monotonic_ns() // 1000
        listed = {job["id"]: job for job in body["jobs"]}
        for job_id, job in listed.items():
            if job["progress"]["completedBytes"] > 0 and job_id not in first_progress:
                first_progress[job_id] = now_us
            if job["state"] == "succeeded" and job_id not in seen_succeeded and job_id in jobs:
                seen_succeeded[job_id] = (now_us, requests_for(jobs[job_id]))
        return {"at_s": time.monotonic() - phase_started,
                "jobs": {job_id: {"state": job["state"], "completed": job["progress"]["completedBytes"]} for job_id, job in listed.items()}}

    def requests_for(item):
        if "dest" in item:
            return sum(1 for entry in read_json_lines(server_log) if entry["path"] == "/" + item["name"])
        return sum(1 for entry in read_json_lines(sink_log) if entry["path"].startswith(f"/{item['mode']}/{item['name']}"))

    for kill in range(kills):
        time.sleep(rng.uniform(0.5, 3.0))
        snapshots.append(snapshot())
        daemon.kill9()
        if args.check_each_kill:
            integrity_after_kill.append(integrity_of_copy(state, os.path.join(work, "copy")))
        restarts.append(daemon.start())
    kill_phase = time.monotonic() - phase_started

    waited_from = time.monotonic()
    wait_status, _, wait_err, _ = cli(args.daemon, sock, "wait", "--all", "--timeout", str(args.wait_timeout), timeout=args.wait_timeout + 30)
    wait_seconds = time.monotonic() - waited_from
    snapshot()
    time.sleep(0.5)  # the servers log a request as it ends

    api = API(sock)
    _, listing = api.json("GET", "/v1/jobs")
    listed = {job["id"]: job for job in listing["jobs"]}
    details = {}
    for job_id in jobs:
        status, detail = api.json("GET", f"/v1/jobs/{job_id}")
        details[job_id] = detail if status == 200 else None
    api.close()
    stop_status = daemon.stop()
    final_integrity = integrity_check(os.path.join(state, "queue.sqlite"))

    server_entries = read_json_lines(server_log)
    sink_entries = read_json_lines(sink_log)
    rows = []
    for item in downloads:
        gets = [e for e in server_entries if e["path"] == "/" + item["name"] and e["method"] == "GET"]
        gets.sort(key=lambda e: e["began"])
        from_zero = [e for e in gets[1:] if e["range"] is None]
        progress_at = first_progress.get(item["id"])
        from_zero_after_progress = [e for e in from_zero if progress_at is not None and e["began"] > progress_at]
        served = sum(e["bytes"] for e in gets)
        job = listed.get(item["id"])
        after_success = None
        if item["id"] in seen_succeeded:
            after_success = len([e for e in gets if e["began"] > seen_succeeded[item["id"]][0]])
        rows.append({"id": item["id"], "kind": "download", "name": item["name"], "bytes": item["bytes"],
                     "state": job["state"] if job else "LOST", "sha256_ok": sha256_file(item["dest"]) == item["sha256"],
                     "requests": len(gets), "from_zero_after_first": len(from_zero), "from_zero_after_progress": len(from_zero_after_progress),
                     "bytes_served": served, "refetched": served - item["bytes"],
                     "daemon_transferred": job["progress"]["transferredBytes"] if job else None,
                     "attempts": job["attempts"] if job else None,
                     "succeeded_in_history": sum(1 for h in (details[item["id"]] or {}).get("history", []) if h["state"] == "succeeded"),
                     "requests_after_success": after_success,
                     "outcomes": {o: sum(1 for e in gets if e["outcome"] == o) for o in sorted({e["outcome"] for e in gets})}})
    for item in uploads:
        mine = [e for e in sink_entries if e["path"].startswith(f"/{item['mode']}/{item['name']}")]
        received = sum(e["received"] for e in mine)
        job = listed.get(item["id"])
        row = {"id": item["id"], "kind": "upload", "mode": item["mode"], "name": item["name"], "bytes": item["bytes"],
               "state": job["state"] if job else "LOST", "sha256_ok": sha256_file(os.path.join(sink_root, item["name"])) == item["sha256"],
               "requests": len(mine), "bytes_received": received, "resent": received - item["bytes"],
               "daemon_transferred": job["progress"]["transferredBytes"] if job else None,
               "attempts": job["attempts"] if job else None,
               "succeeded_in_history": sum(1 for h in (details[item["id"]] or {}).get("history", []) if h["state"] == "succeeded"),
               "requests_after_success": None}
        if item["mode"] == "put":
            puts = [e for e in mine if e["method"] == "PUT"]
            row["full_resends"] = max(0, len(puts) - 1)
            row["puts_complete"] = sum(1 for e in puts if e["complete"])
        else:
            patches = [e for e in mine if e["method"] == "PATCH"]
            creations = [e for e in mine if e["method"] == "POST"]
            row["creations"] = len(creations)
            row["patches"] = len(patches)
            row["conflicts_409"] = sum(1 for e in patches if e["status"] == 409)
            # From byte 0 again: a second upload created, or a PATCH at offset 0 after data arrived.
            zero_again = sum(1 for i, e in enumerate(patches) if e["offset"] == 0 and any(p["received"] > 0 for p in patches[:i]))
            row["full_resends"] = max(0, len(creations) - 1) + zero_again
        if item["id"] in seen_succeeded:
            row["requests_after_success"] = len(mine) - seen_succeeded[item["id"]][1]
        rows.append(row)

    download_rows = [r for r in rows if r["kind"] == "download"]
    refetched = sum(r["refetched"] for r in download_rows)
    run_twice = sum(1 for r in rows if r["succeeded_in_history"] > 1 or (r["requests_after_success"] or 0) > 0)
    return {
        "kills": kills, "seed": args.seed, "download_rate_bytes_per_s": download_rate, "sink_rate_bytes_per_s": sink_rate,
        "per_host": 8, "jobs": rows, "succeeded": sum(1 for r in rows if r["state"] == "succeeded"), "total_jobs": len(rows),
        "sha256_ok": sum(1 for r in rows if r["sha256_ok"]),
        "lost": sum(1 for job_id in jobs if job_id not in listed), "listed": len(listed),
        "run_twice": run_twice,
        "from_zero_after_first": sum(r["from_zero_after_first"] for r in download_rows),
        "from_zero_after_progress": sum(r["from_zero_after_progress"] for r in download_rows),
        "refetched_bytes": refetched, "refetched_bytes_per_kill": refetched / kills if kills else 0,
        "upload_full_resends": {r["mode"]: r["full_resends"] for r in rows if r["kind"] == "upload"},
        "integrity_after_each_kill": integrity_after_kill, "integrity_final": final_integrity,
        "first_start_ms": first_start * 1000, "restart_ms": summary_ms(restarts), "kill_phase_s": kill_phase,
        "wait_status": wait_status, "wait_stderr": wait_err.strip(), "wait_s": wait_seconds, "stop_status": stop_status,
        "snapshots": snapshots, "daemon_log_tail": daemon.tail(),
    }


# MARK: 2 API latency, 3 idle


def timed(api, method, target, body=None, expect=200):
    started = time.perf_counter()
    status, data = api.call(method, target, body)
    elapsed = time.perf_counter() - started
    if status != expect:
        raise RuntimeError(f"{method} {target}: HTTP {status}: {data[:300]!r}")
    return elapsed, data


def proc_sample(pid):
    """CPU ticks (utime+stime), schedstat ns summed over threads, context switches per thread."""
    with open(f"/proc/{pid}/stat") as handle:
        fields = handle.read().rsplit(")", 1)[1].split()
    ticks = int(fields[11]) + int(fields[12])  # utime, stime (fields 14, 15)
    threads = {}
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/status") as handle:
                status = dict(line.split(":", 1) for line in handle if ":" in line)
            with open(f"/proc/{pid}/task/{tid}/schedstat") as handle:
                run_ns = int(handle.read().split()[0])
        except FileNotFoundError:
            continue
        threads[tid] = {"name": status["Name"].strip(), "run_ns": run_ns,
                        "switches": int(status["voluntary_ctxt_switches"]) + int(status["nonvoluntary_ctxt_switches"])}
    with open(f"/proc/{pid}/status") as handle:
        rss_kib = int(next(line for line in handle if line.startswith("VmRSS:")).split()[1])
    return {"ticks": ticks, "threads": threads, "rss_kib": rss_kib}


def idle(pid, seconds):
    before = proc_sample(pid)
    time.sleep(seconds)
    after = proc_sample(pid)
    hz = os.sysconf("SC_CLK_TCK")
    # Per thread: threads that ended during the window are not counted (`threads_gone` says how
    # many); the process's utime+stime (ticks of 1/HZ s) counts them.
    busy, run_ns = {}, 0
    for tid, thread in after["threads"].items():
        earlier = before["threads"].get(tid, {"switches": 0, "run_ns": 0})
        delta = thread["switches"] - earlier["switches"]
        run_ns += thread["run_ns"] - earlier["run_ns"]
        if delta:
            busy[f"{tid} {thread['name']}"] = delta
    return {"seconds": seconds, "cpu_seconds": (after["ticks"] - before["ticks"]) / hz, "cpu_ms_schedstat": run_ns / 1e6,
            "wakeups": sum(busy.values()), "wakeups_by_thread": busy, "threads": len(after["threads"]),
            "threads_gone": len(set(before["threads"]) - set(after["threads"])), "rss_mib": after["rss_kib"] / 1024}


def never_job(work, index, not_before):
    return {"workingDirectory": work, "job": {
        "kind": "download", "constraints": {}, "notBefore": not_before,
        "download": {"url": f"http://127.0.0.1:9/never/{index}.bin", "destination": os.path.join(work, "never", f"{index}.bin")}}}


def api_scenario(args, work):
    os.makedirs(os.path.join(work, "never"), exist_ok=True)
    state = os.path.join(work, "state-api")
    sock = os.path.join(work, "api.sock")
    daemon = Daemon(args.daemon, state, sock, os.path.join(work, "daemon-api.log"))
    daemon.start()
    time.sleep(args.settle)
    idle_empty = idle(daemon.pid, args.idle_seconds)

    not_before = iso(datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(days=10))
    api = API(sock)
    enqueue, ids = [], []
    for index in range(args.jobs):
        elapsed, data = timed(api, "POST", "/v1/jobs", never_job(work, index, not_before), expect=201)
        enqueue.append(elapsed)
        ids.append(json.loads(data)["id"])
    rng = random.Random(args.seed)
    requests = args.requests
    get_job = [timed(api, "GET", f"/v1/jobs/{rng.choice(ids)}")[0] for _ in range(requests)]
    get_path = [timed(api, "GET", "/v1/path")[0] for _ in range(requests)]
    pauses, resumes, pairs = [], [], []
    for _ in range(args.pairs):
        job_id = rng.choice(ids)
        paused, _ = timed(api, "POST", f"/v1/jobs/{job_id}/pause")
        resumed, _ = timed(api, "POST", f"/v1/jobs/{job_id}/resume")
        pauses.append(paused)
        resumes.append(resumed)
        pairs.append(paused + resumed)
    lists, list_bytes = [], 0
    for _ in range(args.lists):
        elapsed, data = timed(api, "GET", "/v1/jobs")
        lists.append(elapsed)
        list_bytes = len(data)
    listed = len(json.loads(data)["jobs"])
    api.close()

    cli_runs = []
    hyperfine = shutil.which("hyperfine")
    cli_tool = "hyperfine" if hyperfine else "repeated runs"
    if hyperfine:
        export = os.path.join(work, "hyperfine.json")
        subprocess.run([hyperfine, "-N", "--warmup", "3", "--runs", str(args.cli_runs), "--export-json", export,
                        f"{args.daemon} queue --socket {sock} list"], capture_output=True, check=True)
        with open(export) as handle:
            cli_runs = json.load(handle)["results"][0]["times"]
    else:
        for run in range(args.cli_runs + 3):
            status, stdout, stderr, elapsed = cli(args.daemon, sock, "list")
            if status != 0:
                raise RuntimeError(f"queue list failed ({status}): {stderr}")
            if run >= 3:  # warm-up
                cli_runs.append(elapsed)
    cli_json_runs = [cli(args.daemon, sock, "list", "--json")[3] for _ in range(max(5, args.cli_runs // 2))]

    time.sleep(args.settle)
    idle_full = idle(daemon.pid, args.idle_seconds)
    counts = None
    try:
        probe = API(sock)
        _, jobs = probe.json("GET", "/v1/jobs")
        probe.close()
        counts = {}
        for job in jobs["jobs"]:
            key = f"{job['state']}/{(job.get('reason') or {}).get('code')}"
            counts[key] = counts.get(key, 0) + 1
    except Exception as error:
        counts = {"error": str(error)}
    stop_status = daemon.stop()
    return {
        "jobs": args.jobs, "listed": listed, "list_bytes": list_bytes,
        "enqueue": summary_ms(enqueue), "get_job": summary_ms(get_job), "get_path": summary_ms(get_path),
        "pause": summary_ms(pauses), "resume": summary_ms(resumes), "pause_resume_pair": summary_ms(pairs),
        "list": summary_ms(lists), "cli_list": summary_ms(cli_runs), "cli_list_json": summary_ms(cli_json_runs), "cli_tool": cli_tool,
        "idle_0_jobs": idle_empty, "idle_1000_jobs": idle_full, "job_states_while_idle": counts, "stop_status": stop_status,
        "integrity_final": integrity_check(os.path.join(state, "queue.sqlite")), "daemon_log_tail": daemon.tail(),
    }


# MARK: 4 full file system


def fill(path):
    """Writes zeros to `path` until the file system is full; returns the bytes written."""
    written = 0
    block = b"\0" * 4096
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        while True:
            try:
                written += os.write(fd, block)
            except OSError:
                break
    finally:
        os.close(fd)
    return written


def state_files(directory):
    return {name: os.path.getsize(os.path.join(directory, name)) for name in sorted(os.listdir(directory))
            if os.path.isfile(os.path.join(directory, name))}


def full_scenario(args, work):
    """A 2 MiB tmpfs holds the state directory and a 512 KiB ballast file (the space freed at
    the end); jobs are added until one is refused, a file fills whatever is left, then the
    checks. The queue's WAL grows with every add until a checkpoint (1,000 pages by default),
    so it is the WAL that meets the full file system."""
    mount = os.path.join(work, "tmpfs")
    os.makedirs(mount)
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=2m,mode=0700", "tmpfs", mount], check=True)

    def unmount():
        if subprocess.run(["umount", mount], capture_output=True).returncode != 0:
            subprocess.run(["umount", "-l", mount], capture_output=True)

    cleanups.append(unmount)
    ballast = os.path.join(mount, "ballast")
    with open(ballast, "wb") as out:
        out.write(b"\1" * (512 << 10))
    state = os.path.join(mount, "state")
    sock = os.path.join(work, "full.sock")
    os.makedirs(os.path.join(work, "never"), exist_ok=True)
    daemon = Daemon(args.daemon, state, sock, os.path.join(work, "daemon-full.log"))
    daemon.start()
    not_before = iso(datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(days=10))
    api = API(sock)
    accepted, refusal = [], None
    for index in range(args.max_full_jobs):
        status, body = api.json("POST", "/v1/jobs", never_job(work, index, not_before))
        if status != 201:
            refusal = {"status": status, "body": body, "after": len(accepted)}
            break
        accepted.append(body["id"])
    filled = fill(os.path.join(mount, "fill"))
    df = subprocess.run(["df", "-k", mount], capture_output=True, text=True).stdout.strip().splitlines()[-1]
    files_when_full = state_files(state)
    api_again = api.json("POST", "/v1/jobs", never_job(work, 99999, not_before))
    cli_status, cli_out, cli_err, _ = cli(args.daemon, sock, "add", "get", "http://127.0.0.1:9/never/cli.bin",
                                          "-o", os.path.join(work, "never", "cli.bin"), "--not-before", "+10d")
    list_status, list_out, list_err, list_s = cli(args.daemon, sock, "list", "--json")
    try:
        listed_ids = {job["id"] for job in json.loads(list_out)} if list_status == 0 else set()
    except ValueError:
        listed_ids = set()
    path_status, _ = api.call("GET", "/v1/path")
    show_status = api.call("GET", f"/v1/jobs/{accepted[0]}")[0] if accepted else None
    pause_status = api.call("POST", f"/v1/jobs/{accepted[-1]}/pause")[0] if accepted else None
    alive = daemon.alive()
    os.remove(os.path.join(mount, "fill"))
    os.remove(ballast)
    freed_status, freed_out, freed_err, _ = cli(args.daemon, sock, "add", "get", "http://127.0.0.1:9/never/freed.bin",
                                                "-o", os.path.join(work, "never", "freed.bin"), "--not-before", "+10d")
    freed_id = int(freed_out.strip()) if freed_status == 0 and freed_out.strip().isdigit() else None
    list2_status, list2_out, _, _ = cli(args.daemon, sock, "list", "--json")
    listed_after = {job["id"] for job in json.loads(list2_out)} if list2_status == 0 else set()
    api.close()
    stop_status = daemon.stop()
    files_after_stop = state_files(state)
    database = os.path.join(state, "queue.sqlite")
    integrity = integrity_check(database)
    stored = set()
    try:
        connection = sqlite3.connect(f"file:{database}?mode=ro", uri=True)
        stored = {row[0] for row in connection.execute("SELECT id FROM job")}
        connection.close()
    except sqlite3.Error as error:
        stored = {"error": str(error)}
    expected = set(accepted) | ({freed_id} if freed_id else set())
    return {
        "tmpfs": "2m", "ballast_bytes": 512 << 10, "accepted": len(accepted), "fill_bytes": filled, "df_when_full": df,
        "state_files_when_full": files_when_full, "state_files_after_stop": files_after_stop,
        "refusal": refusal, "api_status_when_full": api_again[0], "api_body_when_full": api_again[1],
        "cli_status_when_full": cli_status, "cli_stderr_when_full": cli_err.strip(), "cli_stdout_when_full": cli_out.strip(),
        "list_status_when_full": list_status, "list_stderr_when_full": list_err.strip(), "list_s_when_full": list_s,
        "list_shows_all_accepted": set(accepted) <= listed_ids, "listed_when_full": len(listed_ids),
        "path_status_when_full": path_status, "show_status_when_full": show_status, "pause_status_when_full": pause_status,
        "alive_when_full": alive,
        "add_after_free_status": freed_status, "add_after_free_stderr": freed_err.strip(), "listed_after_free": len(listed_after),
        "stop_status": stop_status, "integrity_final": integrity,
        "stored_after_stop": len(stored) if isinstance(stored, set) else stored,
        "stored_has_every_accepted": isinstance(stored, set) and expected <= stored,
        "daemon_log_tail": daemon.tail(),
    }


# MARK: report


def verdict(ok):
    return "ok" if ok else "FAILED"


def report_kill(r):
    print(f"1 kill -9 reliability: {r['kills']} kills 0.5-3 s apart (seed {r['seed']}); {r['total_jobs']} jobs: "
          f"{len([j for j in r['jobs'] if j['kind'] == 'download'])} downloads at {r['download_rate_bytes_per_s'] >> 10} KiB/s, "
          f"uploads (PUT, tus) at {r['sink_rate_bytes_per_s'] >> 10} KiB/s")
    print(f"  {'id':>3} {'job':22} {'MiB':>4} {'state':10} {'sha256':7} {'requests':>8} {'from 0':>6} {'re-sent/fetched MiB':>20} {'attempts':>8}"
          f" {'daemon says moved MiB':>22}")
    for j in r["jobs"]:
        label = j["name"] if j["kind"] == "download" else f"{j['mode']} {j['name']}"
        extra = j["refetched"] if j["kind"] == "download" else j["resent"]
        zero = j["from_zero_after_first"] if j["kind"] == "download" else j["full_resends"]
        print(f"  {j['id']:>3} {label[:22]:22} {j['bytes'] / MiB:4.0f} {j['state']:10} {'ok' if j['sha256_ok'] else 'WRONG':7} "
              f"{j['requests']:>8} {zero:>6} {extra / MiB:20.2f} {j['attempts']!s:>8} {(j['daemon_transferred'] or 0) / MiB:22.2f}")
    kills_ok = sum(1 for answer in r["integrity_after_each_kill"] if answer == "ok")
    print(f"  succeeded {r['succeeded']}/{r['total_jobs']} ({verdict(r['succeeded'] == r['total_jobs'])}); sha256 correct {r['sha256_ok']}/{r['total_jobs']}; "
          f"lost {r['lost']}; run twice {r['run_twice']}")
    print(f"  downloads from byte 0 again: {r['from_zero_after_first']} after the first request, {r['from_zero_after_progress']} after reported progress (target 0)")
    print(f"  bytes re-fetched: {r['refetched_bytes'] / MiB:.2f} MiB in all, {r['refetched_bytes_per_kill'] / 1024:.0f} KiB per kill")
    downloads = [j for j in r["jobs"] if j["kind"] == "download"]
    uploads = [j for j in r["jobs"] if j["kind"] == "upload"]
    print(f"  the daemon's transferredBytes: downloads {sum(j['daemon_transferred'] or 0 for j in downloads) / MiB:.1f} MiB "
          f"(the server sent {sum(j['bytes_served'] for j in downloads) / MiB:.1f}), uploads "
          f"{sum(j['daemon_transferred'] or 0 for j in uploads) / MiB:.1f} MiB (the sink read {sum(j['bytes_received'] for j in uploads) / MiB:.1f})")
    print(f"  upload full re-sends: PUT {r['upload_full_resends'].get('put')} (expected after kills), tus {r['upload_full_resends'].get('tus')} (target 0)")
    print(f"  integrity_check: {kills_ok}/{len(r['integrity_after_each_kill'])} copies right after a kill ok; after the final stop: {r['integrity_final']}")
    print(f"  restart to API answering: p50 {r['restart_ms']['p50_ms']:.0f} ms, max {r['restart_ms']['max_ms']:.0f} ms; kill phase {r['kill_phase_s']:.0f} s; "
          f"wait --all exit {r['wait_status']} after {r['wait_s']:.1f} s more; SIGTERM exit {r['stop_status']}")


def report_api(r):
    print(f"2 API latency with {r['jobs']} jobs (one keep-alive connection on the Unix socket)")
    print(f"  {'request':34} {'n':>5} {'p50 ms':>8} {'p99 ms':>8} {'max ms':>8}")
    rows = [("POST /v1/jobs (enqueue, fsync)", r["enqueue"], None), ("GET /v1/jobs/{id}", r["get_job"], 5),
            ("GET /v1/path", r["get_path"], 5), ("POST /v1/jobs/{id}/pause", r["pause"], 5), ("POST /v1/jobs/{id}/resume", r["resume"], 5),
            (f"GET /v1/jobs ({r['listed']} jobs, {r['list_bytes'] >> 10} KiB)", r["list"], 50),
            (f"reach-daemon queue list (CLI)", r["cli_list"], 50), ("reach-daemon queue list --json (CLI)", r["cli_list_json"], 50)]
    for name, s, target in rows:
        mark = "" if target is None else f"  p99 <= {target} ms: {'met' if s['p99_ms'] <= target else 'NOT MET'}"
        print(f"  {name:34} {s['n']:>5} {s['p50_ms']:8.2f} {s['p99_ms']:8.2f} {s['max_ms']:8.2f}{mark}")
    print(f"  (CLI timing: {r['cli_tool']}; end to end, process start included)")


def report_idle(r):
    print(f"3 idle, {r['idle_0_jobs']['seconds']:.0f} s with nothing running")
    print(f"  {'jobs':>5} {'CPU s (ticks)':>14} {'CPU ms (schedstat)':>19} {'wakeups':>8} {'threads':>8} {'RSS MiB':>8}")
    for label, s in (("0", r["idle_0_jobs"]), (str(r["jobs"]), r["idle_1000_jobs"])):
        print(f"  {label:>5} {s['cpu_seconds']:14.2f} {s['cpu_ms_schedstat']:19.2f} {s['wakeups']:>8} {s['threads']:>8} {s['rss_mib']:8.1f}")
    for label, s in (("0", r["idle_0_jobs"]), (str(r["jobs"]), r["idle_1000_jobs"])):
        print(f"  wakeups with {label} jobs by thread: {s['wakeups_by_thread']} ({s['threads_gone']} threads ended during the window)")
    print(f"  job states while idle: {r['job_states_while_idle']}")


def report_full(r):
    print("4 full file system (state directory on a 2 MiB tmpfs)")
    files = ", ".join(f"{name} {size >> 10} KiB" for name, size in r["state_files_when_full"].items())
    print(f"  accepted {r['accepted']} jobs until refused: HTTP {(r['refusal'] or {}).get('status')}; then a file filled {r['fill_bytes'] >> 10} KiB more")
    print(f"  state directory when full: {files}")
    print(f"  API add when full: HTTP {r['api_status_when_full']} {json.dumps(r['api_body_when_full'])}")
    print(f"  CLI add when full: exit {r['cli_status_when_full']}, stderr: {r['cli_stderr_when_full']!r}")
    print(f"  list when full: exit {r['list_status_when_full']}, shows every accepted job: {verdict(r['list_shows_all_accepted'])} "
          f"({r['listed_when_full']}); GET /v1/path {r['path_status_when_full']}; daemon alive: {verdict(r['alive_when_full'])}")
    print(f"  when full: GET /v1/jobs/{{id}} {r['show_status_when_full']}, POST pause {r['pause_status_when_full']}")
    print(f"  after freeing {r['ballast_bytes'] >> 10} KiB: add exit {r['add_after_free_status']} {r['add_after_free_stderr']!r}; listed {r['listed_after_free']}")
    print(f"  after stop (exit {r['stop_status']}): integrity_check {r['integrity_final']}; rows {r['stored_after_stop']}, "
          f"every accepted job stored: {verdict(r['stored_has_every_accepted'])}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--daemon", default=os.path.join(ROOT, ".build-release/release/reach-daemon"))
    parser.add_argument("--server", default=os.path.join(ROOT, ".build-release/release/reach-testserver"))
    parser.add_argument("--quick", action="store_true", help="5 kills, smaller files and fewer requests")
    parser.add_argument("--scenarios", default="kill,api,full,scale,burst",
                        help="comma-separated, of: kill, api (with idle), full, scale (10,000 waiting jobs), burst (4,000 released at once)")
    parser.add_argument("--scale-jobs", type=int, default=10000)
    parser.add_argument("--burst-jobs", type=int, default=4000)
    parser.add_argument("--kills", type=int)
    parser.add_argument("--seed", type=int, default=20261124)
    parser.add_argument("--jobs", type=int, default=1000)
    parser.add_argument("--keep", action="store_true", help="keep the work directory (logs, state)")
    args = parser.parse_args()
    if os.geteuid() != 0 and "full" in args.scenarios:
        parser.error("the full scenario mounts a tmpfs: run as root")
    args.kills = args.kills if args.kills is not None else (5 if args.quick else 20)
    args.requests = 500 if args.quick else 2000
    args.pairs = 100 if args.quick else 500
    args.lists = 30 if args.quick else 100
    args.cli_runs = 10 if args.quick else 30
    args.idle_seconds = 10
    args.settle = 2
    args.wait_timeout = 240
    args.max_full_jobs = 5000
    args.check_each_kill = True
    scenarios = set(args.scenarios.split(","))
    for binary in (args.daemon, args.server):
        if not os.access(binary, os.X_OK):
            parser.error(f"{binary} is missing: build it (scripts/bench/daemon.sh does)")

    work = tempfile.mkdtemp(prefix="reach-bench-daemon-")
    if not args.keep:
        cleanups.append(lambda: shutil.rmtree(work, ignore_errors=True))
    started = time.monotonic()
    results = {"started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "quick": args.quick, "daemon": args.daemon,
               "uptime_before": uptime_text(), "load_before": load(), "work": work if args.keep else None,
               "build_lock_held": os.environ.get("REACH_BENCH_LOCKED") == "1"}
    try:
        results["git"] = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    except OSError:
        pass
    failed = []
    import daemon_scale
    for name, function in (("kill", kill_scenario), ("api", api_scenario), ("full", full_scenario),
                           ("scale", daemon_scale.scale_scenario), ("burst", daemon_scale.burst_scenario)):
        if name not in scenarios:
            continue
        before = load()
        try:
            results[name] = function(args, work)
        except Exception as error:
            traceback.print_exc()
            results[name] = {"error": f"{type(error).__name__}: {error}"}
            failed.append(name)
        results[name]["load_before"] = before
        results[name]["load_after"] = load()
    results["uptime_after"] = uptime_text()
    results["seconds"] = time.monotonic() - started

    print(f"reach daemon benchmark  {results['started']}  ({'quick' if args.quick else 'full'}, {results['seconds']:.0f} s)")
    print(f"  load before: {results['uptime_before']}")
    for name, report in (("kill", report_kill), ("api", report_api), ("api", report_idle), ("full", report_full),
                         ("scale", daemon_scale.report_scale), ("burst", daemon_scale.report_burst)):
        if name not in results:
            continue
        if "error" in results[name]:
            if report is not report_idle:
                print(f"{name}: FAILED: {results[name]['error']}")
            continue
        report(results[name])
    print(f"  load after: {results['uptime_after']}")
    os.makedirs(os.path.join(ROOT, "scripts/bench/results"), exist_ok=True)
    out = os.path.join(ROOT, "scripts/bench/results", time.strftime("daemon-%Y%m%dT%H%M%SZ.json", time.gmtime()))
    with open(out, "w") as handle:
        json.dump(results, handle, indent=2, default=str)
    print(f"JSON: {out}")
    if args.keep:
        print(f"work directory kept: {work}")
    if failed:
        sys.exit(1)


if __name__ == "__main__":
    main()
