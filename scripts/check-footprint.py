#!/usr/bin/env python3
"""The footprint check (issue 36): what the Debian package ships must fit a gateway.

Builds the .deb with scripts/package-deb.sh (release, static Swift runtime, stripped; or takes
REACH_DEB), unpacks it and measures what it ships: each binary's size, ICU's locale
data in any of them (`icudt`), the GIO module's NEEDED libraries (GLib, GIO, json-glib and libc
only), the .deb's size and what it installs; then runs the shipped binaries: `reach watch` idle,
the daemon idle, with 10,000 downloads waiting in its engine, after cancelling them, and started
again over those 10,000 finished jobs (which it must not load), each in a network namespace of
its own, and reads VmRSS, RssAnon and RssFile from /proc/PID/status.

Fails when a figure is over its limit in scripts/footprint-limits.conf, printing the whole
table either way; writes the figures as JSON (scripts/bench/results/footprint-*.json).
Standard library only; needs root (namespaces)."""
import glob, http.client, json, os, re, shutil, signal, socket, subprocess, sys, tempfile, threading, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import uplink_namespace  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "bench"))
from benchlib import status_kib  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
UNITS = {"B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "count": 1}
GIO_ALLOWED = {"libgio-2.0.so.0", "libgobject-2.0.so.0", "libglib-2.0.so.0", "libjson-glib-1.0.so.0", "libc.so.6"}
NAMESPACE = "reach-footprint"
cleanups = []


def limits():
    """NAME -> (limit, limit as written, target or None, target as written) from the limits file.
    A line is `NAME = NUMBER UNIT`, optionally followed by `target NUMBER UNIT` when the limit
    enforced today is above the goal (the table says which goals are not met)."""
    quantity = r"([0-9]+(?:\.[0-9]+)?)\s+(B|KiB|MiB|count)"
    found = {}
    with open(os.path.join(ROOT, "scripts/footprint-limits.conf")) as handle:
        for number, line in enumerate(handle, 1):
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            match = re.fullmatch(r"([a-z0-9_]+)\s*=\s*" + quantity + r"(?:\s+target\s+" + quantity + r")?", line)
            if not match:
                sys.exit(f"check-footprint: footprint-limits.conf line {number}: not NAME = NUMBER UNIT [target NUMBER UNIT]: {line}")
            limit = int(float(match[2]) * UNITS[match[3]])
            target = int(float(match[4]) * UNITS[match[5]]) if match[4] else None
            found[match[1]] = (limit, f"{match[2]} {match[3]}", target, f"{match[4]} {match[5]}" if match[4] else "")
    return found


def package():
    """The .deb of this tree: scripts/package-deb.sh (incremental), or REACH_DEB when given."""
    if os.environ.get("REACH_DEB"):
        return os.environ["REACH_DEB"]
    built = subprocess.run([os.path.join(ROOT, "scripts/package-deb.sh")], check=True, stdout=subprocess.PIPE, text=True)
    deb = os.path.join(ROOT, built.stdout.strip().splitlines()[-1]) if built.stdout.strip() else ""
    if not deb.endswith(".deb") or not os.path.isfile(deb):
        sys.exit(f"check-footprint: scripts/package-deb.sh printed no .deb ({deb!r})")
    return deb


def unpack(deb, into):
    subprocess.run(["dpkg-deb", "-x", deb, into], check=True)
    installed = 0
    for directory, _, files in os.walk(into):
        for name in files:
            path = os.path.join(directory, name)
            if not os.path.islink(path):
                installed += os.path.getsize(path)
    return installed


def icu_symbols(path):
    """Occurrences of `icudt` in the file (ICU's data symbol is icudtNN_dat), as `grep -c` counts lines."""
    with open(path, "rb") as handle:
        data = handle.read()
    return sum(1 for line in data.split(b"\n") if b"icudt" in line)


def needed(path):
    output = subprocess.run(["readelf", "-d", path], check=True, capture_output=True, text=True).stdout
    return re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", output)


def memory(pid):
    """VmRSS, RssAnon and RssFile of `pid`, in bytes."""
    return {key: (status_kib(pid, key) or 0) * 1024 for key in ("VmRSS", "RssAnon", "RssFile")}


def make_namespace():
    """d0, a veth, the default route, overridden as cellular: a download for wired networks waits."""
    uplink_namespace.create(NAMESPACE, "d0", "10.9.0.2")
    cleanups.append(lambda: uplink_namespace.delete(NAMESPACE))


def start(argv, log):
    process = subprocess.Popen(["ip", "netns", "exec", NAMESPACE, *argv], stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT)
    cleanups.append(lambda: (process.poll() is None and process.kill(), process.wait()))
    return process


class UnixConnection(http.client.HTTPConnection):
    def __init__(self, path):
        super().__init__("localhost", timeout=30)
        self.path = path

    def connect(self):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(30)
        self.sock.connect(self.path)


def wait_for_socket(path, process, timeout=30):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            sys.exit(f"check-footprint: the daemon exited with {process.returncode}")
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
                probe.connect(path)
                return
        except OSError:
            time.sleep(0.05)
    sys.exit(f"check-footprint: the daemon did not listen on {path} within {timeout} s")


def settled(pid, seconds=2.0):
    """Memory after `seconds` idle (the start-up's work done)."""
    time.sleep(seconds)
    return memory(pid)


def measure_running(tree, work):
    make_namespace()
    figures = {}
    with open(os.path.join(work, "watch.log"), "wb") as log:
        watch = start([os.path.join(tree, "usr/bin/reach"), "watch"], log)
        figures["watch"] = settled(watch.pid)
        os.kill(watch.pid, signal.SIGTERM)
        watch.wait(timeout=10)
    state = os.path.join(work, "state")
    sock = os.path.join(work, "reach.sock")
    argv = [os.path.join(tree, "usr/bin/reach-daemon"), "daemon", "--state-dir", state, "--socket", sock,
            "--path-socket", "none", "--override", "d0=cellular"]
    with open(os.path.join(work, "daemon.log"), "wb") as log:
        daemon = start(argv, log)
        wait_for_socket(sock, daemon)
        figures["daemon"] = settled(daemon.pid)
        connection = UnixConnection(sock)
        jobs = 10_000
        # Their directory exists: a download whose directory does not fails at once.
        os.makedirs(os.path.join(work, "jobs"), exist_ok=True)
        for index in range(jobs):
            body = json.dumps({"workingDirectory": work, "job": {
                "kind": "download", "constraints": {"when": "wired"},
                "download": {"url": f"http://10.9.9.9:9/footprint/{index}.bin", "destination": os.path.join(work, "jobs", f"{index}.bin")}}})
            connection.request("POST", "/v1/jobs", body, {"Content-Type": "application/json"})
            response = connection.getresponse()
            answer = response.read()
            if response.status != 201:
                sys.exit(f"check-footprint: job {index} was refused: HTTP {response.status} {answer[:200]!r}")
        figures["daemon_10000_jobs"] = settled(daemon.pid, 3.0)
        figures["jobs"] = jobs
        waiting = list_jobs(sock, "state=paused&view=summary")
        if waiting != jobs:
            sys.exit(f"check-footprint: {waiting} of the {jobs} downloads wait (paused) for a wired network; all should")
        started = time.monotonic()
        cancel_all(sock, jobs)
        figures["cancel_seconds"] = round(time.monotonic() - started, 2)
        figures["daemon_after_finishing"] = settled(daemon.pid, 3.0)
        os.kill(daemon.pid, signal.SIGTERM)
        daemon.wait(timeout=30)
    # The same state directory again: 10,000 finished jobs in the database, none in memory.
    with open(os.path.join(work, "daemon-again.log"), "wb") as log:
        daemon = start(argv, log)
        wait_for_socket(sock, daemon)
        figures["daemon_10000_finished"] = settled(daemon.pid)
        started = time.monotonic()
        listed = list_jobs(sock, "state=cancelled&view=summary")
        figures["list_10000_finished_seconds"] = round(time.monotonic() - started, 3)
        if listed != jobs:
            sys.exit(f"check-footprint: the restarted daemon listed {listed} cancelled jobs, not {jobs}")
        os.kill(daemon.pid, signal.SIGTERM)
        daemon.wait(timeout=30)
    return figures


def cancel_all(sock, jobs, clients=8):
    """Cancels jobs 1...jobs, from `clients` connections at once (their commits share fsyncs)."""
    failures = []

    def cancel(first):
        connection = UnixConnection(sock)
        for job in range(first, jobs + 1, clients):
            connection.request("POST", f"/v1/jobs/{job}/cancel")
            response = connection.getresponse()
            answer = response.read()
            if response.status != 200:
                connection.request("GET", f"/v1/jobs/{job}")
                detail = connection.getresponse().read()
                failures.append(f"job {job}: HTTP {response.status} {answer[:200]!r}; the job: {detail[:600]!r}")
                return

    threads = [threading.Thread(target=cancel, args=(first,)) for first in range(1, clients + 1)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if failures:
        sys.exit(f"check-footprint: a cancel was refused: {failures[0]}")


def list_jobs(sock, query):
    connection = UnixConnection(sock)
    connection.request("GET", f"/v1/jobs?{query}")
    response = connection.getresponse()
    answer = response.read()
    if response.status != 200:
        sys.exit(f"check-footprint: GET /v1/jobs?{query}: HTTP {response.status} {answer[:200]!r}")
    return len(json.loads(answer)["jobs"])


def mib(value):
    return f"{value / (1 << 20):.1f} MiB"


def main():
    if os.geteuid() != 0:
        sys.exit("check-footprint: needs root (network namespaces)")
    allowed = limits()
    deb = package()
    work = tempfile.mkdtemp(prefix="reach-footprint-")
    cleanups.append(lambda: shutil.rmtree(work, ignore_errors=True))
    tree = os.path.join(work, "tree")
    installed = unpack(deb, tree)
    gio = glob.glob(os.path.join(tree, "usr/lib/*/gio/modules/libgioreach.so"))
    if not gio:
        sys.exit("check-footprint: the package ships no libgioreach.so")
    binaries = {"reach_binary": os.path.join(tree, "usr/bin/reach"), "daemon_binary": os.path.join(tree, "usr/bin/reach-daemon"),
                "gio_module": gio[0]}
    running = measure_running(tree, work)
    watch, idle, loaded = running["watch"], running["daemon"], running["daemon_10000_jobs"]
    rows = []  # (name, measured, shown, how it was measured)
    for name, path in binaries.items():
        real = os.path.realpath(path)
        shown = mib(os.path.getsize(real)) if name != "gio_module" else f"{os.path.getsize(real) / 1024:.0f} KiB"
        note = f"{os.path.relpath(path, tree)}" + (f" -> {os.path.basename(real)}" if real != path else "")
        rows.append((name, os.path.getsize(real), shown, note))
    icu = sum(icu_symbols(os.path.realpath(path)) for path in binaries.values())
    rows.append(("icu_data_symbols", icu, str(icu), "`grep -c icudt` over the three"))
    rows.append(("deb_file", os.path.getsize(deb), mib(os.path.getsize(deb)), os.path.basename(deb)))
    rows.append(("installed", installed, mib(installed), "every file the .deb unpacks"))
    rows.append(("watch_rss", watch["VmRSS"], mib(watch["VmRSS"]), f"reach watch idle; file-backed {mib(watch['RssFile'])}"))
    rows.append(("watch_anon", watch["RssAnon"], mib(watch["RssAnon"]), "reach watch idle, RssAnon"))
    rows.append(("daemon_rss", idle["VmRSS"], mib(idle["VmRSS"]), f"daemon idle; anon {mib(idle['RssAnon'])}, file {mib(idle['RssFile'])}"))
    rows.append(("daemon_rss_10000_jobs", loaded["VmRSS"], mib(loaded["VmRSS"]),
                 f"10,000 waiting downloads; anon {mib(loaded['RssAnon'])}, file {mib(loaded['RssFile'])}"))
    per_job = max(0, loaded["VmRSS"] - idle["VmRSS"]) // running["jobs"]
    rows.append(("per_waiting_job", per_job, f"{per_job / 1024:.2f} KiB", "(RSS with 10,000 - idle) / 10,000"))
    after, finished = running["daemon_after_finishing"], running["daemon_10000_finished"]
    rows.append(("daemon_rss_after_cancelling", after["VmRSS"], mib(after["VmRSS"]),
                 f"the 10,000 cancelled ({running['cancel_seconds']} s), same process; anon {mib(after['RssAnon'])}"))
    rows.append(("daemon_rss_10000_finished", finished["VmRSS"], mib(finished["VmRSS"]),
                 f"restarted over them; anon {mib(finished['RssAnon'])}; listing them took {running['list_10000_finished_seconds']} s"))
    per_finished = max(0, finished["VmRSS"] - idle["VmRSS"]) // running["jobs"]
    rows.append(("per_finished_job", per_finished, f"{per_finished} B", "(RSS restarted over 10,000 finished - idle) / 10,000"))
    gio_needed = needed(binaries["gio_module"])
    extra = sorted(set(gio_needed) - GIO_ALLOWED)
    failures = [name for name, value, _, _ in rows if name in allowed and value > allowed[name][0]]
    short = [name for name, value, _, _ in rows if name in allowed and allowed[name][2] is not None and value > allowed[name][2]]
    if extra:
        failures.append("gio_needed")
    print(f"{'figure':<24} {'measured':>12} {'limit':>10} {'target':>10}  how")
    for name, value, shown, note in rows:
        _, limit, _, target = allowed.get(name, (None, "-", None, ""))
        mark = "  OVER THE LIMIT" if name in failures else ("  target not met" if name in short else "")
        print(f"{name:<24} {shown:>12} {limit:>10} {target or limit:>10}  {note}{mark}")
    print(f"{'gio_needed':<24} {len(gio_needed):>12} {'-':>10} {'-':>10}  {', '.join(gio_needed)}" + (f"  NOT ALLOWED: {', '.join(extra)}" if extra else ""))
    missing = sorted(set(allowed) - {name for name, _, _, _ in rows})
    if missing:
        sys.exit(f"check-footprint: limits without a measurement: {', '.join(missing)}")
    results = {"deb": os.path.basename(deb), "figures": {name: value for name, value, _, _ in rows}, "gio_needed": gio_needed,
               "memory": running, "limits": {name: value[0] for name, value in allowed.items()},
               "targets": {name: value[2] if value[2] is not None else value[0] for name, value in allowed.items()},
               "failures": failures, "targets_not_met": short}
    out_dir = os.path.join(ROOT, "scripts/bench/results")
    os.makedirs(out_dir, exist_ok=True)
    out = os.path.join(out_dir, time.strftime("footprint-%Y%m%dT%H%M%SZ.json", time.gmtime()))
    with open(out, "w") as handle:
        json.dump(results, handle, indent=2)
    print(f"check-footprint: figures in {os.path.relpath(out, ROOT)}")
    if failures:
        sys.exit(f"check-footprint: over the limit: {', '.join(failures)}")
    print("check-footprint: every figure within its limit" + (f"; targets not met: {', '.join(short)}" if short else ""))


if __name__ == "__main__":
    try:
        main()
    finally:
        for cleanup in reversed(cleanups):
            try:
                cleanup()
            except Exception:
                pass
