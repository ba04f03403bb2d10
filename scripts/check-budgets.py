#!/usr/bin/env python3
"""Data budgets per network (issue #21), checked against a real daemon, a real nginx and the
kernel's own counters.

Two private network namespaces: `reach-budget-host` holds the daemon and two veth uplinks,
`vcell0` (the default route; `vcell0 = cellular, expensive` in the daemon's --config) and
`vwifi0` (`vwifi0 = wifi`, with a /32 route to a second server address); their peers are in
`reach-budget-srv`, where nginx serves files of random bytes on 10.78.0.1 (reached over vcell0)
and 10.79.0.1 (over vwifi0) and takes PUT uploads. The traffic is curl's, not the daemon's
(except the queued downloads of check c). The reference for every figure is `ip -s -j link`
(IFLA_STATS64 rx_bytes + tx_bytes).

a. `budget set cell --for cellular --limit 200MB --warning 40MB --cycle monthly:1`, then 3 x 20 MiB
   downloads and an 8 MiB upload over vcell0: `budget show cell --json` counts within +-1 % of
   vcell0's rx+tx delta; the budget `wifi` of the configuration file (`budget wifi = wifi ...`)
   is not touched by it, and counts traffic to the Wi-Fi address within +-1 % of vwifi0's delta
   (and `cell` does not); /v1/path lists `cell` (the primary's budget) and not `wifi`.
b. The warning: a dispatcher hook records `budget-warning cell warning` within 10 s of the
   traffic crossing 40 MB; /metrics has reach_budget_state{budget="cell",state="warning"} 1.
d. kill -9 after traffic (part of it not yet checkpointed), more traffic while the daemon is
   down, restart: the count is still within +-1 % of the ip -s delta (same boot: the persisted
   per-interface baselines cover the downtime), over the phase and since the budget's creation.
e. vcell0 deleted and re-created (same name, new ifindex), twice: once after the count settled
   (5 MiB down before, 5 MiB down after), once right after a 5 MiB upload (the link messages of
   the deletion carry the last counters; an upload, because a veth whose peer is gone reports
   rx_bytes 0 in them, the last tx_bytes intact): the count never goes down and ends within
   +-1 % of what it had plus the kernel's bytes since.
f. Fresh counts, with the daemon restarted to count only every 60 s: 45 MiB of curl over
   vcell0 under `fresh` (50 MB) is counted by `budget show fresh` at once (+-1 %); a 10 MiB job
   added right after gets at most what is left (+256 KiB) and waits overBudget; after 5 MiB more
   of curl, past the limit, /v1/path says `fresh` is exhausted at once; a job at 4 MB/s (nginx's
   limit_rate) under `live` (25 MB), exhausted by 20 MiB of curl while it runs, is paused
   overBudget within 3 s. `cell` is reset afterwards, and the daemon counts every 2 s again.
c. A job held: a budget already exhausted (`held`, 1 MB, passed by 8 MiB of curl) holds a
   queued download (`queue show ID --json`: reason overBudget naming `held`); `budget snooze
   held` releases it and it succeeds. Then `cyc` (daily) exhausted the same way holds another
   download until a new cycle: the daemon's wall clock (libfaketime, below) jumps to 30 s past
   the cycle's end, the job succeeds, `cyc` is `ok` again with the new cycle's small count.
   Run last: only this check moves the clock.

The clock: the daemon runs under libfaketime (Debian's `faketime` package: libfaketimeMT.so.1)
with FAKETIME_TIMESTAMP_FILE, FAKETIME_NO_CACHE=1 and DONT_FAKE_MONOTONIC=1, TZ=UTC. Three
things about libfaketime 0.9.10 with a Swift daemon, found the hard way:
- Its initializer calls setenv(), which moves `environ` before the Swift runtime locates argv
  from it: CommandLine.arguments comes out empty (swiftlang/swift#76080) and the daemon runs
  with no arguments. FAKETIME_SHARED set (to names that do not exist) skips that setenv().
- A process that starts with a non-zero offset has Swift's timers (Task.sleep) firing late or
  not at all; one started at offset 0 keeps them right after the offset changes. So the file
  says `+0` until check c, and the daemon is never restarted after the jump.
- Offsets are relative (`+SECONDS`), never negative, and only ever grow.

Needs root (namespaces), nginx, curl, iproute2 and libfaketime, and the built reach-daemon
(.build/debug, or $REACH_BIN_DIR). Without root, or a tool, it prints why and exits 0 (skipped),
except under CI=true, where anything missing is a failure. Exits 1 on any failure, each with
the daemon's log tail; prints a table of the figures (counted, ip -s link, error).

`--setup-only` builds the namespaces and nginx, measures curl transfers against ip -s link,
checks libfaketime with the Swift binary, and tears everything down (no daemon needed).
"""
import argparse, glob, hashlib, http.client, json, os, re, shutil, signal, socket, subprocess, sys, tempfile, threading, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from daemon_process import DaemonProcess, die_with_parent

BIN_DIR = os.environ.get("REACH_BIN_DIR") or os.path.join(ROOT, ".build", "debug")
DAEMON = os.path.join(BIN_DIR, "reach-daemon")
NGINX = "/usr/sbin/nginx"
CI = os.environ.get("CI") == "true"

HOST = "reach-budget-host"
SERVER = "reach-budget-srv"
CELL, WIFI = "vcell0", "vwifi0"
# Each uplink: its /24 (host .2, server side .1) and the server address reached over it.
LINKS = {
    CELL: {"peer": CELL + "s", "host": "10.71.0.2", "server": "10.71.0.1", "route": "default"},
    WIFI: {"peer": WIFI + "s", "host": "10.72.0.2", "server": "10.72.0.1", "route": "10.79.0.1/32"},
}
CELL_SERVER = "10.78.0.1"  # on the server's lo, reached by the default route (vcell0)
WIFI_SERVER = "10.79.0.1"  # on the server's lo, reached by a /32 route over vwifi0

COUNT_INTERVAL = 2
SETTLE = 2 * COUNT_INTERVAL + 1.5  # two readings after the traffic, and a margin
TOLERANCE = 0.01
MiB = 1 << 20
FILES = {"f20.bin": 20 * MiB, "f10.bin": 10 * MiB, "f8.bin": 8 * MiB, "f5.bin": 5 * MiB, "f1.bin": 1 * MiB}

CONFIGURATION = """# check-budgets.py: the uplinks' types, and one budget from the file (no cycle, no warning)
vcell0 = cellular, expensive
vwifi0 = wifi
budget wifi = wifi limit=10GB warning=none cycle=none
"""
HOOK = """#!/bin/sh
echo "$1 $REACH_BUDGET $REACH_BUDGET_STATE $REACH_BUDGET_USED" >> "{record}"
"""

# No proxy for anything here: every address is in the namespaces.
ENVIRONMENT = {key: value for key, value in os.environ.items() if key.lower() not in ("http_proxy", "https_proxy", "all_proxy", "no_proxy")}

failures = []
figures = []  # (what, counted, kernel, error or None, verdict)


def say(text):
    print(f"check-budgets: {text}", flush=True)


def fail(where, message):
    failures.append(f"{where}: {message}")
    print(f"check-budgets: FAIL {where}: {message}", file=sys.stderr, flush=True)


def ok(where, detail=""):
    say(f"ok   {where}{': ' + detail if detail else ''}")


class Problem(Exception):
    """A step that could not be done: fails the check it is in."""


def run(command, check=True, timeout=120, **options):
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, env=ENVIRONMENT, stdin=subprocess.DEVNULL, **options)
    except subprocess.TimeoutExpired:
        raise Problem(f"`{' '.join(command)}` did not finish within {timeout} s")
    if check and done.returncode != 0:
        raise Problem(f"`{' '.join(command)}` exited {done.returncode}: {(done.stderr or done.stdout).strip()[-600:]}")
    return done


def netns(name, *command, **options):
    return run(["ip", "netns", "exec", name, *command], **options)


# The network.

def delete_namespaces():
    for name in (HOST, SERVER):
        subprocess.run(["ip", "netns", "del", name], capture_output=True)


def make_network():
    delete_namespaces()
    for name in (HOST, SERVER):
        run(["ip", "netns", "add", name])
        # No IPv6: no router solicitations or DAD on the links, only the traffic made here.
        netns(name, "sysctl", "-q", "-w", "net.ipv6.conf.all.disable_ipv6=1", "net.ipv6.conf.default.disable_ipv6=1", check=False)
        run(["ip", "-n", name, "link", "set", "lo", "up"])
    run(["ip", "-n", SERVER, "addr", "add", CELL_SERVER + "/32", "dev", "lo"])
    run(["ip", "-n", SERVER, "addr", "add", WIFI_SERVER + "/32", "dev", "lo"])
    for name in (CELL, WIFI):
        create_link(name)


def create_link(name):
    """The veth `name` in the host namespace, its peer on the server side, addresses and route."""
    link = LINKS[name]
    run(["ip", "-n", HOST, "link", "add", name, "type", "veth", "peer", "name", link["peer"], "netns", SERVER])
    run(["ip", "-n", SERVER, "addr", "add", link["server"] + "/24", "dev", link["peer"]])
    run(["ip", "-n", SERVER, "link", "set", link["peer"], "up"])
    run(["ip", "-n", HOST, "addr", "add", link["host"] + "/24", "dev", name])
    run(["ip", "-n", HOST, "link", "set", name, "up"])
    run(["ip", "-n", HOST, "route", "replace", link["route"], "via", link["server"], "dev", name])


def delete_link(name):
    run(["ip", "-n", HOST, "link", "del", name])


def link_info(name):
    """(ifindex, rx_bytes + tx_bytes) of `name` in the host namespace (IFLA_STATS64)."""
    out = run(["ip", "-n", HOST, "-s", "-j", "link", "show", "dev", name]).stdout
    entry = json.loads(out)[0]
    stats = entry["stats64"]
    return entry["ifindex"], stats["rx"]["bytes"] + stats["tx"]["bytes"]


def kernel_bytes(name):
    return link_info(name)[1]


# The server.

class Nginx:
    """nginx in the server namespace, single process: the files, and PUT into /upload/."""

    def __init__(self, directory):
        self.directory = directory
        self.www = os.path.join(directory, "www")
        self.process = None
        os.makedirs(os.path.join(self.www, "upload"), exist_ok=True)
        os.makedirs(os.path.join(directory, "tmp"), exist_ok=True)
        self.digests = {}
        for name, size in FILES.items():
            path = os.path.join(self.www, name)
            with open("/dev/urandom", "rb") as source, open(path, "wb") as target:
                remaining = size
                while remaining:
                    chunk = source.read(min(remaining, MiB))
                    target.write(chunk)
                    remaining -= len(chunk)
            self.digests[name] = sha256(path)

    def configuration(self):
        temp = os.path.join(self.directory, "tmp")
        return f"""daemon off; master_process off; worker_processes 1; pid {self.directory}/nginx.pid;
error_log {self.directory}/error.log;
events {{ worker_connections 64; }}
http {{
  access_log {self.directory}/access.log;
  sendfile on;
  client_body_temp_path {temp}; proxy_temp_path {temp}; fastcgi_temp_path {temp}; uwsgi_temp_path {temp}; scgi_temp_path {temp};
  server {{
    listen 80 default_server;
    root {self.www};
    default_type application/octet-stream;
    location /upload/ {{ dav_methods PUT; create_full_put_path on; client_max_body_size 64m; }}
    location /slow/ {{ alias {self.www}/; limit_rate 4m; }}
  }}
}}
"""

    def start(self):
        path = os.path.join(self.directory, "nginx.conf")
        with open(path, "w") as file:
            file.write(self.configuration())
        with open(os.path.join(self.directory, "nginx.out"), "wb") as log:
            self.process = subprocess.Popen(["ip", "netns", "exec", SERVER, NGINX, "-c", path, "-p", self.directory],
                                            stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, preexec_fn=die_with_parent,
                                            env=ENVIRONMENT)
        # Asked on the server's own loopback: no byte crosses the uplinks before the checks.
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise Problem(f"nginx exited with {self.process.returncode}: {self.log()}")
            done = netns(SERVER, "curl", "-s", "-o", "/dev/null", "-w", "%{http_code}", "--max-time", "2", "http://127.0.0.1/f1.bin", check=False)
            if done.stdout.strip() == "200":
                return
            time.sleep(0.1)
        raise Problem(f"nginx did not serve within 15 s: {self.log()}")

    def log(self):
        text = ""
        for name in ("nginx.out", "error.log"):
            try:
                with open(os.path.join(self.directory, name), errors="replace") as file:
                    text += file.read()[-1000:]
            except OSError:
                pass
        return text.strip()

    def stop(self):
        process, self.process = self.process, None
        if process is None or process.poll() is not None:
            return
        process.terminate()
        try:
            process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def sha256(path):
    digest = hashlib.sha256()
    with open(path, "rb") as file:
        for chunk in iter(lambda: file.read(MiB), b""):
            digest.update(chunk)
    return digest.hexdigest()


def download(server, name):
    """curl in the host namespace fetches `name`; returns the body's bytes."""
    done = netns(HOST, "curl", "-sS", "--fail", "--noproxy", "*", "--max-time", "60", "-o", "/dev/null", "-w", "%{size_download}",
                 f"http://{server}/{name}")
    return int(done.stdout.strip() or 0)


def upload(server, name, directory):
    """curl in the host namespace PUTs the file `name` (no `Expect: 100-continue`)."""
    done = netns(HOST, "curl", "-sS", "--fail", "--noproxy", "*", "--max-time", "60", "-o", "/dev/null", "-H", "Expect:",
                 "-w", "%{size_upload}", "-T", os.path.join(directory, "www", name), f"http://{server}/upload/{name}")
    return int(float(done.stdout.strip() or 0))


# The clock.

def find_libfaketime():
    found = sorted(glob.glob("/usr/lib/*/faketime/libfaketimeMT.so.1")) + sorted(glob.glob("/usr/lib/faketime/libfaketimeMT.so.1"))
    return found[0] if found else None


class FakeClock:
    """The daemon's wall clock: real time plus an offset, written to libfaketime's timestamp file
    (re-read on every call). Starts at +0 (see the module's notes)."""

    def __init__(self, path, library):
        self.path = path
        self.library = library
        self.offset = 0
        self.write()

    def write(self):
        with open(self.path + ".new", "w") as file:
            file.write(f"+{self.offset}\n")
        os.replace(self.path + ".new", self.path)

    def environment(self):
        """`env` arguments for a process whose clock this is."""
        return ["TZ=UTC", f"LD_PRELOAD={self.library}", f"FAKETIME_TIMESTAMP_FILE={self.path}", "FAKETIME_NO_CACHE=1",
                "DONT_FAKE_MONOTONIC=1", "FAKETIME_DONT_FAKE_MONOTONIC=1",
                # Set, libfaketime's initializer does not call setenv() (which empties Swift's
                # CommandLine.arguments); the names exist nowhere, so nothing is shared.
                "FAKETIME_SHARED=/reach-budget-none-sem /reach-budget-none-shm"]

    def now(self):
        return time.time() + self.offset

    def jump_to(self, epoch):
        offset = int(epoch - time.time()) + 1
        if offset < self.offset:
            raise Problem(f"the clock only moves forward (offset {self.offset} s, asked {offset} s)")
        self.offset = offset
        self.write()


def faketime_files():
    """libfaketime's shared-memory files (`faketime_shm_PID`, `sem.faketime_sem_PID`)."""
    try:
        return {name for name in os.listdir("/dev/shm") if re.fullmatch(r"(?:sem\.)?faketime_(?:sem|shm)_\d+", name)}
    except OSError:
        return set()


def remove_faketime_files(before):
    """Those that appeared since `before` and whose process is gone: a child the daemon spawns
    with an environment of its own (a hook) gets libfaketime's defaults and leaves a pair."""
    for name in faketime_files() - before:
        if not os.path.exists(f"/proc/{name.rsplit('_', 1)[1]}"):
            try:
                os.unlink(os.path.join("/dev/shm", name))
            except OSError:
                pass


def check_faketime(clock):
    """The Swift binary keeps its arguments under libfaketime, and the offset applies."""
    version = run(["env", *clock.environment(), DAEMON, "--version"], check=False)
    if version.returncode != 0 or not re.match(r"^\d+\.\d+", version.stdout.strip()):
        raise Problem(f"under libfaketime `reach-daemon --version` printed {version.stdout.strip()[:200]!r} "
                      f"(exit {version.returncode}): the Swift runtime lost its arguments")
    saved = clock.offset
    clock.offset = 86400
    clock.write()
    try:
        faked = float(run(["env", *clock.environment(), "date", "-u", "+%s"]).stdout.strip())
    finally:
        clock.offset = saved
        clock.write()
    if abs(faked - (time.time() + 86400)) > 5:
        raise Problem(f"libfaketime did not move `date` by a day: {faked} vs {time.time()}")


# The daemon.

class Daemon(DaemonProcess):
    description = "the daemon (in reach-budget-host)"

    def __init__(self, directory, clock):
        super().__init__(directory, os.path.join(directory, "daemon.1.log"))
        self.clock = clock
        self.hooks = os.path.join(directory, "hooks")
        self.record = os.path.join(directory, "hooks.record")
        self.configuration = os.path.join(directory, "reach.conf")
        self.starts = 0
        self.count_interval = COUNT_INTERVAL
        os.makedirs(self.hooks, mode=0o755, exist_ok=True)
        hook = os.path.join(self.hooks, "50-record")
        with open(hook, "w") as file:
            file.write(HOOK.format(record=self.record))
        os.chmod(hook, 0o755)
        with open(self.configuration, "w") as file:
            file.write(CONFIGURATION)

    def command(self):
        return ["ip", "netns", "exec", HOST, "env", *self.clock.environment(), DAEMON, "daemon",
                "--state-dir", os.path.join(self.directory, "state"), "--socket", self.socket_path, "--config", self.configuration,
                "--count-interval", str(self.count_interval), "--dispatcher-dir", self.hooks, "--dispatcher-timeout", "5", "--no-wifi-facts"]

    def start(self, timeout=30):
        self.starts += 1
        self.log_path = os.path.join(self.directory, f"daemon.{self.starts}.log")
        super().start(timeout)

    def kill9(self):
        process, self.process = self.process, None
        os.kill(process.pid, signal.SIGKILL)
        process.wait()
        return process.returncode

    def log(self):
        return super().log() or "(empty)"


class Api:
    """GET on the control socket (cheap enough to poll; the checks themselves use the CLI)."""

    def __init__(self, socket_path):
        self.socket_path = socket_path

    def get(self, target, timeout=10):
        connection = http.client.HTTPConnection("localhost", timeout=timeout)
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(timeout)
        try:
            sock.connect(self.socket_path)
            connection.sock = sock
            connection.request("GET", target)
            response = connection.getresponse()
            return response.status, response.read()
        finally:
            connection.close()

    def json(self, target):
        status, body = self.get(target)
        if status != 200:
            raise Problem(f"GET {target}: {status} {body[:300]!r}")
        return json.loads(body)


class Cli:
    def __init__(self, socket_path):
        self.socket_path = socket_path

    def __call__(self, *arguments, check=True):
        return run([DAEMON, *arguments], check=check, timeout=60)

    def budget(self, *arguments, check=True):
        return self("budget", "--socket", self.socket_path, *arguments, check=check)

    def show(self, name):
        done = self.budget("show", name, "--json")
        try:
            return json.loads(done.stdout)
        except ValueError as error:
            raise Problem(f"`budget show {name} --json` printed no JSON ({error}): {done.stdout[:300]!r}")

    def queue(self, *arguments, check=True):
        return self("queue", "--socket", self.socket_path, *arguments, check=check)

    def add_download(self, url, destination):
        done = self.queue("add", "get", url, "-o", destination, "--when", "any")
        try:
            return int(done.stdout.strip().splitlines()[-1])
        except (ValueError, IndexError):
            raise Problem(f"`queue add get` printed no job id: {done.stdout!r}")

    def job(self, job_id):
        done = self.queue("show", str(job_id), "--json")
        return json.loads(done.stdout)["job"]


class HookWatcher(threading.Thread):
    """Reads the hooks' record every 50 ms, noting when each line was first seen."""

    def __init__(self, path):
        super().__init__(daemon=True)
        self.path = path
        self.lines = []  # (monotonic time first seen, fields)
        self.lock = threading.Lock()
        self.stopping = threading.Event()

    def run(self):
        offset = 0
        while not self.stopping.is_set():
            try:
                with open(self.path, "rb") as file:
                    file.seek(offset)
                    data = file.read()
            except OSError:
                data = b""
            complete = data[:data.rfind(b"\n") + 1]
            offset += len(complete)
            now = time.monotonic()
            with self.lock:
                self.lines.extend((now, line.split()) for line in complete.decode("utf-8", "replace").splitlines() if line.strip())
            self.stopping.wait(0.05)

    def first(self, *fields, after=None):
        with self.lock:
            for seen, line in self.lines:
                if line[:len(fields)] == list(fields) and (after is None or seen >= after):
                    return seen
        return None

    def wait_for(self, *fields, timeout, after=None):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            seen = self.first(*fields, after=after)
            if seen is not None:
                return seen
            time.sleep(0.05)
        return self.first(*fields, after=after)

    def budget_lines(self):
        with self.lock:
            return [" ".join(line) for _, line in self.lines if line and line[0].startswith("budget-")]


def metric_samples(text):
    """The samples of a Prometheus text exposition: (name, labels, value) for each line."""
    samples = []
    for line in text.splitlines():
        match = re.fullmatch(r'([A-Za-z_:][A-Za-z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+\S+)?', line)
        if line.startswith("#") or match is None:
            continue
        labels = dict(re.findall(r'([A-Za-z_][A-Za-z0-9_]*)="((?:[^"\\]|\\.)*)"', match.group(2) or ""))
        try:
            samples.append((match.group(1), labels, float(match.group(3))))
        except ValueError:
            continue
    return samples


def wait_until(predicate, timeout, interval=0.25):
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value or time.monotonic() >= deadline:
            return value
        time.sleep(interval)


def rfc3339(text):
    """Seconds since 1970 of `2026-12-01T00:00:00Z` (what the daemon writes)."""
    import calendar
    return calendar.timegm(time.strptime(text, "%Y-%m-%dT%H:%M:%SZ"))


def compare(what, counted, kernel, tolerance=TOLERANCE):
    """Records a figure; True when `counted` is within `tolerance` of `kernel`."""
    error = (counted - kernel) / kernel if kernel else None
    good = error is not None and abs(error) <= tolerance
    figures.append((what, counted, kernel, error, "ok" if good else "FAIL"))
    return good


def record_untouched(what, counted, kernel, slack=4096):
    """Records a figure that should be about nothing; True when it is."""
    good = counted <= kernel + slack and counted >= 0
    figures.append((what, counted, kernel, None, "ok" if good else "FAIL"))
    return good


# The checks.

class Context:
    def __init__(self, directory, daemon, nginx, clock, watcher):
        self.directory = directory
        self.daemon = daemon
        self.nginx = nginx
        self.clock = clock
        self.watcher = watcher
        self.cli = Cli(daemon.socket_path)
        self.api = Api(daemon.socket_path)
        self.cell_created_kernel = None  # vcell0's bytes when `cell` was created
        self.cell_cycle_start = None
        self.crossed_at = None
        self.kernel_before_delete = 0  # bytes of vcell0 generations that are gone

    def cell_kernel_total(self):
        """vcell0's bytes since `cell` was created, across its re-creations."""
        return self.kernel_before_delete + kernel_bytes(CELL) - self.cell_created_kernel

    def cell(self, where):
        document = self.cli.show("cell")
        if self.cell_cycle_start and document.get("cycleStart") != self.cell_cycle_start:
            raise Problem(f"{where}: cell's cycle changed ({self.cell_cycle_start} -> {document.get('cycleStart')}): the test ran "
                          "across the month's end (real time); run it again")
        return document


def check_a_counting(context):
    where = "a. counting"
    cli = context.cli
    cli.budget("set", "cell", "--for", "cellular", "--limit", "200MB", "--warning", "40MB", "--cycle", "monthly:1")
    context.cell_created_kernel = kernel_bytes(CELL)
    cell = context.cell(where)
    context.cell_cycle_start = cell.get("cycleStart")
    expected = {"name": "cell", "for": "cellular", "limitBytes": 200_000_000, "warningBytes": 40_000_000, "cycle": "monthly:1",
                "source": "api", "interfaces": [CELL]}
    wrong = {key: cell.get(key) for key, value in expected.items() if cell.get(key) != value}
    if wrong or cell.get("cycleEnd") is None:
        fail(where, f"`budget show cell --json`: expected {expected} and a cycleEnd; differs: {wrong}")
    wifi = cli.show("wifi")
    expected = {"for": "wifi", "source": "config", "warningBytes": None, "cycle": "none", "cycleEnd": None, "interfaces": [WIFI]}
    wrong = {key: wifi.get(key) for key, value in expected.items() if wifi.get(key) != value}
    if wrong:
        fail(where, f"the configuration file's budget `wifi`: expected {expected}; differs: {wrong}")
    listing = json.loads(cli.budget("list", "--json").stdout)
    if sorted(budget.get("name") for budget in listing) != ["cell", "wifi"]:
        fail(where, f"`budget list --json` lists {[budget.get('name') for budget in listing]}, expected cell and wifi")

    wifi_kernel = kernel_bytes(WIFI)
    wifi_used = wifi["usedBytes"]
    moved = 0
    for step, transfer in enumerate((("get", "f20.bin"), ("get", "f20.bin"), ("put", "f8.bin"), ("get", "f20.bin"))):
        moved += download(CELL_SERVER, transfer[1]) if transfer[0] == "get" else upload(CELL_SERVER, transfer[1], context.nginx.directory)
        if context.crossed_at is None and context.cell_kernel_total() >= 40_000_000:
            context.crossed_at = time.monotonic()
    time.sleep(SETTLE)
    cell = context.cell(where)
    kernel = context.cell_kernel_total()
    if not compare("a. cell: curl over vcell0 (3 x 20 MiB down, 8 MiB up)", cell["usedBytes"], kernel):
        fail(where, f"cell counted {cell['usedBytes']} bytes, vcell0 moved {kernel} (curl's bodies: {moved})")
    if cell.get("state") != "warning":
        fail(where, f"cell is {cell.get('state')!r} at {cell['usedBytes']} of 200 MB with a 40 MB warning, expected warning")
    wifi_now = cli.show("wifi")["usedBytes"]
    if not record_untouched("a. wifi: during the cellular traffic", wifi_now - wifi_used, kernel_bytes(WIFI) - wifi_kernel):
        fail(where, f"the wifi budget grew by {wifi_now - wifi_used} bytes during cellular traffic (vwifi0: {kernel_bytes(WIFI) - wifi_kernel})")

    # Traffic to the Wi-Fi address: the wifi budget counts it, cell does not.
    cell_used, cell_kernel = cell["usedBytes"], kernel_bytes(CELL)
    wifi_used, wifi_kernel = wifi_now, kernel_bytes(WIFI)
    download(WIFI_SERVER, "f8.bin")
    upload(WIFI_SERVER, "f1.bin", context.nginx.directory)
    time.sleep(SETTLE)
    wifi = cli.show("wifi")
    if not compare("a. wifi: curl over vwifi0 (8 MiB down, 1 MiB up)", wifi["usedBytes"] - wifi_used, kernel_bytes(WIFI) - wifi_kernel):
        fail(where, f"wifi counted {wifi['usedBytes'] - wifi_used} bytes, vwifi0 moved {kernel_bytes(WIFI) - wifi_kernel}")
    cell = context.cell(where)
    if not record_untouched("a. cell: during the Wi-Fi traffic", cell["usedBytes"] - cell_used, kernel_bytes(CELL) - cell_kernel):
        fail(where, f"cell grew by {cell['usedBytes'] - cell_used} bytes during Wi-Fi traffic (vcell0: {kernel_bytes(CELL) - cell_kernel})")

    # The path's budgets: those of its primary, vcell0.
    path = context.api.json("/v1/path")
    names = {budget.get("name"): budget for budget in path.get("budgets", [])}
    entry = names.get("cell", {})
    # No usage in the path: it would change with every count, and a path is published only when
    # something about it changes (a budget's state, not its bytes).
    if "wifi" in names or (entry.get("state"), entry.get("limitBytes"), entry.get("cycleEnd")) != ("warning", 200_000_000, cell.get("cycleEnd")) \
            or "usedBytes" in entry:
        fail(where, f"/v1/path's budgets: {path.get('budgets')}, expected cell (warning, limitBytes 200000000, "
             f"cycleEnd {cell.get('cycleEnd')}, no usedBytes) and not wifi (primary {path.get('primary')})")
    if not any(failure.startswith(where) for failure in failures):
        ok(where, f"cell {cell['usedBytes']} bytes (warning), wifi unaffected by cellular traffic, counts its own")


def check_b_warning(context):
    where = "b. warning"
    if context.crossed_at is None:
        raise Problem("the traffic of check a never crossed 40 MB on vcell0")
    seen = context.watcher.wait_for("budget-warning", "cell", "warning", timeout=max(0.0, context.crossed_at + 10 - time.monotonic()))
    if seen is None or seen - context.crossed_at > 10:
        fail(where, f"no `budget-warning cell warning` from the hook within 10 s of crossing 40 MB; budget lines: {context.watcher.budget_lines()}")
    else:
        latency = seen - context.crossed_at
        figures.append(("b. warning hook after crossing 40 MB (s)", round(max(latency, 0.0), 2), 10, None, "ok"))
    done = run(["curl", "-sS", "--unix-socket", context.daemon.socket_path, "http://localhost/metrics"])
    samples = metric_samples(done.stdout)

    def value(name, **labels):
        found = [sample[2] for sample in samples if sample[0] == name and sample[1] == labels]
        return found[0] if len(found) == 1 else None

    states = {state: value("reach_budget_state", budget="cell", state=state) for state in ("ok", "warning", "exhausted", "snoozed")}
    if states != {"ok": 0, "warning": 1, "exhausted": 0, "snoozed": 0}:
        fail(where, f'reach_budget_state{{budget="cell",...}}: {states}, expected warning 1 and the others 0')
    if value("reach_budget_limit_bytes", budget="cell") != 200_000_000:
        fail(where, f'reach_budget_limit_bytes{{budget="cell"}} is {value("reach_budget_limit_bytes", budget="cell")}, expected 200000000')
    used = value("reach_budget_used_bytes", budget="cell")
    shown = context.cell(where)["usedBytes"]
    if used is None or abs(used - shown) > TOLERANCE * shown:
        fail(where, f'reach_budget_used_bytes{{budget="cell"}} is {used}, `budget show` says {shown}')
    if not any(failure.startswith(where) for failure in failures):
        ok(where, f"hook {seen - context.crossed_at:.2f} s after crossing 40 MB; reach_budget_state warning 1")


def check_d_restart(context):
    where = "d. kill -9"
    time.sleep(SETTLE)
    used0, kernel0 = context.cell(where)["usedBytes"], context.cell_kernel_total()
    download(CELL_SERVER, "f10.bin")
    time.sleep(SETTLE)  # counted and checkpointed
    download(CELL_SERVER, "f10.bin")  # counted at most in memory when the daemon dies
    status = context.daemon.kill9()
    if status != -signal.SIGKILL:
        fail(where, f"the daemon exited {status}, not by SIGKILL")
    download(CELL_SERVER, "f10.bin")  # nobody counting
    context.daemon.start()
    time.sleep(SETTLE)
    cell = context.cell(where)
    kernel = context.cell_kernel_total()
    if not compare("d. cell: 10 MiB, 10 MiB, kill -9, 10 MiB while down, restart", cell["usedBytes"] - used0, kernel - kernel0):
        fail(where, f"after the restart cell counted {cell['usedBytes'] - used0} bytes of the phase, vcell0 moved {kernel - kernel0} "
             f"(10 MiB is {10 * MiB}: a whole transfer lost or doubled?)")
    if not compare("d. cell: since its creation, after the restart", cell["usedBytes"], kernel):
        fail(where, f"cell counted {cell['usedBytes']} bytes since its creation, vcell0 moved {kernel}")
    if not any(failure.startswith(where) for failure in failures):
        ok(where, f"{cell['usedBytes'] - used0} bytes counted over the phase for {kernel - kernel0} on vcell0")


class Sampler(threading.Thread):
    """`cell`'s usedBytes every 0.3 s (over the API), to see that it never goes down."""

    def __init__(self, api):
        super().__init__(daemon=True)
        self.api = api
        self.values = []
        self.stopping = threading.Event()

    def run(self):
        while not self.stopping.is_set():
            try:
                status, body = self.api.get("/v1/budgets/cell", timeout=5)
                if status == 200:
                    self.values.append(json.loads(body)["usedBytes"])
            except (OSError, ValueError, KeyError, http.client.HTTPException):
                pass
            self.stopping.wait(0.3)

    def drops(self):
        return [(a, b) for a, b in zip(self.values, self.values[1:]) if b < a]


def check_e_recreate(context):
    where = "e. re-created interface"
    sampler = Sampler(context.api)
    sampler.start()
    try:
        for label, settle_first in (("after the count settled", True), ("right after an upload", False)):
            time.sleep(SETTLE)
            used0, kernel0 = context.cell(where)["usedBytes"], context.cell_kernel_total()
            if settle_first:
                download(CELL_SERVER, "f5.bin")
                time.sleep(SETTLE)
            else:
                # Deleted before the next reading: only the deletion's link messages tell these
                # bytes, and for a veth only the sent ones (rx_bytes reads 0 once the peer is gone).
                upload(CELL_SERVER, "f5.bin", context.nginx.directory)
            index, last = link_info(CELL)
            delete_link(CELL)
            context.kernel_before_delete += last - context.cell_created_kernel
            context.cell_created_kernel = 0
            time.sleep(0.5)
            create_link(CELL)
            new_index, _ = link_info(CELL)
            if new_index == index:
                fail(where, f"vcell0 came back with the same ifindex {index}")
            download(CELL_SERVER, "f5.bin")
            time.sleep(SETTLE)
            used = context.cell(where)["usedBytes"]
            kernel = context.cell_kernel_total()
            if not compare(f"e. cell: 5 MiB {'down' if settle_first else 'up'}, delete {label}, re-create (ifindex {index} -> {new_index}), "
                           "5 MiB down", used - used0, kernel - kernel0):
                # What a veth says as it goes: its last RTM_NEWLINK and its RTM_DELLINK carry rx_bytes 0
                # (the peer is gone) and tx_bytes intact, so rx+tx compared as one total goes down.
                if used - used0 > kernel - kernel0:
                    hint = (" (the deleting veth's last link messages report rx_bytes 0 and tx_bytes intact: a total (rx+tx) that went "
                            "down, taken for a counter reset, counts tx again; baselines per direction avoid it)")
                else:
                    hint = (" (the last tx_bytes, in the deleting veth's link messages, not counted? There rx_bytes is 0: compared as "
                            "one total (rx+tx), the new tx hides behind the lost rx; baselines per direction count it)")
                fail(where, f"{label}: cell counted {used - used0} bytes over the phase, vcell0's two lives moved {kernel - kernel0}{hint}")
    finally:
        sampler.stopping.set()
        sampler.join(timeout=5)
    drops = sampler.drops()
    if drops:
        fail(where, f"cell's usedBytes went down: {drops[:5]}")
    if not any(failure.startswith(where) for failure in failures):
        ok(where, f"{len(sampler.values)} samples, never down; deletion and re-creation counted once")


def wait_reason(context, job_id, code, timeout):
    def reason():
        job = context.cli.job(job_id)
        return job if (job.get("reason") or {}).get("code") == code else None
    return wait_until(reason, timeout, interval=0.5)


def wait_state(context, job_id, state, timeout):
    def done():
        status, body = context.api.get(f"/v1/jobs/{job_id}")
        return status == 200 and json.loads(body)["job"]["state"] == state
    return wait_until(done, timeout, interval=0.25)


def exhaust(context, name, where):
    """curl moves 8 MiB over vcell0; waits until `name` is exhausted."""
    download(CELL_SERVER, "f8.bin")
    document = wait_until(lambda: (lambda d: d if d.get("state") == "exhausted" else None)(context.cli.show(name)), SETTLE + 5, interval=0.5)
    if not document:
        raise Problem(f"{name} is not exhausted after 8 MiB over vcell0: {context.cli.show(name)}")
    return document


def check_held_job(context, where, budget, job_id, destination):
    """The job waits with reason overBudget naming `budget`, and stays so for two intervals."""
    job = wait_reason(context, job_id, "overBudget", timeout=10)
    if not job:
        job = context.cli.job(job_id)
        raise Problem(f"job {job_id} is {job.get('state')} ({job.get('reason')}), not waiting with reason overBudget")
    reason = job["reason"]
    if job.get("state") not in ("pending", "paused"):
        fail(where, f"job {job_id} is {job.get('state')!r} with reason overBudget, expected pending or paused")
    if not re.search(rf"\b{re.escape(budget)}\b", reason.get("message", "")):
        fail(where, f"the reason does not name the budget {budget!r}: {reason}")
    time.sleep(2 * COUNT_INTERVAL)
    job = context.cli.job(job_id)
    if job.get("state") in ("running", "succeeded") or os.path.exists(destination):
        fail(where, f"job {job_id} ran although {budget} is exhausted: {job.get('state')}")
    return reason


def wait_cellular(context):
    def on_cellular():
        status, body = context.api.get("/v1/path")
        path = json.loads(body) if status == 200 else {}
        return path.get("status") == "cellular" and (path.get("primary") or {}).get("name") == CELL
    if not wait_until(on_cellular, 15):
        raise Problem(f"the daemon's path is not cellular via {CELL} within 15 s: {context.api.get('/v1/path')[1][:400]!r}")


def restart_counting_every(context, seconds):
    context.daemon.stop()
    context.daemon.count_interval = seconds
    context.daemon.start()
    wait_cellular(context)


def check_f_fresh(context):
    """Decisions on fresh counts, with the daemon counting only every 60 s: 45 MiB of curl over
    vcell0 under a 50 MB budget is counted by `budget show` at once, and a 10 MiB job added
    right after stops at what is left (it ran to completion on a count of 0); a 4 MB/s job
    under a budget that curl's traffic exhausts while it runs is paused within about a second
    of the limit (it ran on past it)."""
    where = "f. fresh counts"
    cli = context.cli
    downloads = os.path.join(context.directory, "downloads-f")
    os.makedirs(downloads, exist_ok=True)
    restart_counting_every(context, 60)
    try:
        cli.budget("set", "fresh", "--for", "cellular", "--limit", "50MB", "--warning", "none", "--cycle", "none")
        base_used, base_kernel = cli.show("fresh")["usedBytes"], kernel_bytes(CELL)
        for name in ("f20.bin", "f20.bin", "f5.bin"):
            download(CELL_SERVER, name)
        moved = kernel_bytes(CELL) - base_kernel
        asked = time.monotonic()
        fresh = cli.show("fresh")
        answered = time.monotonic() - asked
        figures.append(("f. budget show right after the traffic (s)", round(answered, 3), 1, None, "ok" if answered < 1 else "slow"))
        if not compare("f. fresh: 45 MiB of curl, shown at once", fresh["usedBytes"] - base_used, moved):
            fail(where, f"`budget show fresh` counted {fresh['usedBytes'] - base_used} bytes {answered:.2f} s after curl moved {moved}")
        left = 50_000_000 - fresh["usedBytes"]
        destination = os.path.join(downloads, "f10.bin")
        job_id = cli.add_download(f"http://{CELL_SERVER}/f10.bin", destination)
        job = wait_reason(context, job_id, "overBudget", timeout=15)
        job = job or cli.job(job_id)
        done = (job.get("progress") or {}).get("completedBytes", 0)
        if job.get("state") == "succeeded" or (job.get("reason") or {}).get("code") != "overBudget":
            fail(where, f"the 10 MiB job added with {left} bytes left is {job.get('state')} ({job.get('reason')}), expected paused overBudget")
        elif done > left + 256 * 1024:
            fail(where, f"the job got {done} bytes with {left} left")
        figures.append(("f. job added with 2.8 MB left: bytes it got", done, left, None, "ok" if done <= left + 256 * 1024 else "over"))
        cli.queue("cancel", str(job_id), check=False)
        # 5 MiB more of curl passes the limit: /v1/path says `fresh` is exhausted at once.
        download(CELL_SERVER, "f5.bin")
        budgets = {budget.get("name"): budget.get("state") for budget in context.api.json("/v1/path").get("budgets", [])}
        if budgets.get("fresh") != "exhausted":
            fail(where, f"/v1/path right after curl passed the limit says {budgets}, expected fresh exhausted")
        cli.budget("remove", "fresh")

        # Live: the budget runs out while a job runs, by traffic that is not the job's.
        used_kernel = kernel_bytes(CELL)
        cli.budget("set", "live", "--for", "cellular", "--limit", "25MB", "--warning", "none", "--cycle", "none")
        base_used = cli.show("live")["usedBytes"]
        destination = os.path.join(downloads, "slow.bin")
        job_id = cli.add_download(f"http://{CELL_SERVER}/slow/f20.bin", destination)
        if not wait_state(context, job_id, "running", 10):
            raise Problem(f"the slow job never ran: {cli.job(job_id)}")
        time.sleep(1)
        download(CELL_SERVER, "f20.bin")
        crossed = time.monotonic()
        job = wait_reason(context, job_id, "overBudget", timeout=15)
        paused_after = time.monotonic() - crossed
        job = job or cli.job(job_id)
        over = (kernel_bytes(CELL) - used_kernel) - (25_000_000 - base_used)
        if job.get("state") == "succeeded" or (job.get("reason") or {}).get("code") != "overBudget":
            fail(where, f"the job running while curl exhausted `live` is {job.get('state')} ({job.get('reason')}), expected paused overBudget")
        elif paused_after > 3:
            fail(where, f"the job was paused {paused_after:.1f} s after the budget ran out")
        figures.append(("f. running job paused after the limit (s)", round(paused_after, 2), 3, None, "ok" if paused_after <= 3 else "late"))
        figures.append(("f. bytes past the limit when paused", over, 25_000_000, None, "ok"))
        cli.queue("cancel", str(job_id), check=False)
    finally:
        # Whatever failed, check c's budgets alone must hold its jobs: `cell`, which counted all
        # of this, back to 0, and this check's budgets gone.
        for name in ("fresh", "live"):
            cli.budget("remove", name, check=False)
        cli.budget("reset", "cell", check=False)
        restart_counting_every(context, COUNT_INTERVAL)
    if not any(failure.startswith(where) for failure in failures):
        ok(where, "counted at once, a job held at the limit, a running one paused at it")


def check_c_held(context):
    where = "c. held jobs"
    cli = context.cli
    downloads = os.path.join(context.directory, "downloads")
    os.makedirs(downloads, exist_ok=True)
    url = f"http://{CELL_SERVER}/f1.bin"

    # Released by a snooze.
    cli.budget("set", "held", "--for", "cellular", "--limit", "1MB", "--warning", "none", "--cycle", "monthly:1")
    exhaust(context, "held", where)
    if context.watcher.wait_for("budget-exhausted", "held", "exhausted", timeout=10) is None:
        fail(where, f"no `budget-exhausted held exhausted` from the hook; budget lines: {context.watcher.budget_lines()}")
    first = os.path.join(downloads, "first.bin")
    job_id = cli.add_download(url, first)
    reason = check_held_job(context, where, "held", job_id, first)
    say(f"     job {job_id} waits: {reason.get('message')}")
    cli.budget("snooze", "held")
    if cli.show("held").get("state") != "snoozed":
        fail(where, f"held is {cli.show('held').get('state')!r} after `budget snooze held`")
    if not wait_state(context, job_id, "succeeded", 30):
        fail(where, f"job {job_id} did not succeed within 30 s of the snooze: {cli.job(job_id)}")
    elif sha256(first) != context.nginx.digests["f1.bin"]:
        fail(where, f"job {job_id}'s file differs from the server's")
    if context.watcher.wait_for("budget-snoozed", "held", "snoozed", timeout=10) is None:
        fail(where, f"no `budget-snoozed held snoozed` from the hook; budget lines: {context.watcher.budget_lines()}")
    cli.budget("remove", "held")

    # Released by a new cycle: the daemon's clock jumps past the cycle's end.
    cli.budget("set", "cyc", "--for", "cellular", "--limit", "4MB", "--warning", "none", "--cycle", "daily")
    cyc = exhaust(context, "cyc", where)
    second = os.path.join(downloads, "second.bin")
    job_id = cli.add_download(url, second)
    reason = check_held_job(context, where, "cyc", job_id, second)
    if reason.get("until") != cyc.get("cycleEnd"):
        fail(where, f"the reason's until is {reason.get('until')!r}, expected cyc's cycleEnd {cyc.get('cycleEnd')!r}")
    old_end = cyc["cycleEnd"]
    jumped = time.monotonic()
    context.clock.jump_to(rfc3339(old_end) + 30)
    say(f"     the daemon's clock jumped to {time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime(context.clock.now()))} (cyc ended {old_end})")
    if not wait_state(context, job_id, "succeeded", 30):
        fail(where, f"job {job_id} did not succeed within 30 s of the new cycle: {cli.job(job_id)}; cyc: {cli.show('cyc')}")
    else:
        figures.append(("c. job released after the new cycle began (s)", round(time.monotonic() - jumped, 2), 30, None, "ok"))
        if sha256(second) != context.nginx.digests["f1.bin"]:
            fail(where, f"job {job_id}'s file differs from the server's")
    time.sleep(SETTLE)
    cyc = cli.show("cyc")
    if cyc.get("state") != "ok" or cyc.get("cycleStart") != old_end or not 0 < cyc.get("usedBytes", -1) < 2_500_000:
        fail(where, f"after the new cycle cyc is {cyc.get('state')!r}, from {cyc.get('cycleStart')} (expected {old_end}), "
             f"{cyc.get('usedBytes')} bytes used (expected the job's ~1.1 MB)")
    if context.watcher.wait_for("budget-ok", "cyc", "ok", timeout=10, after=jumped) is None:
        fail(where, f"no `budget-ok cyc ok` from the hook after the new cycle; budget lines: {context.watcher.budget_lines()}")
    if not any(failure.startswith(where) for failure in failures):
        ok(where, "held by an exhausted budget, released by a snooze and by a new cycle")


def print_figures():
    if not figures:
        return
    width = max(len(row[0]) for row in figures)
    say(f"{'figure':<{width}}  {'counted':>12}  {'ip -s link':>12}  {'error':>8}")
    for what, counted, kernel, error, verdict in figures:
        shown = f"{error * 100:+.3f} %" if error is not None else ""
        say(f"{what:<{width}}  {counted:>12}  {kernel:>12}  {shown:>8}  {verdict}")


# Running.

def missing_prerequisites():
    """What this machine lacks for the checks (empty: nothing)."""
    missing = []
    if os.geteuid() != 0:
        missing.append("root (network namespaces)")
    for tool in ("ip", "curl"):
        if shutil.which(tool) is None:
            missing.append(tool)
    if not os.access(NGINX, os.X_OK):
        missing.append(f"nginx ({NGINX}; scripts/test.sh installs nginx-light)")
    if find_libfaketime() is None:
        missing.append("libfaketimeMT.so.1 (the Debian package faketime)")
    if not missing:
        probe = "reach-budget-probe"
        made = subprocess.run(["ip", "netns", "add", probe], capture_output=True, text=True)
        subprocess.run(["ip", "netns", "del", probe], capture_output=True)
        if made.returncode != 0:
            missing.append(f"network namespaces ({made.stderr.strip()})")
    return missing


def setup_only(directory):
    """The network, nginx and libfaketime without the daemon: figures of curl against ip -s link."""
    nginx = Nginx(os.path.join(directory, "nginx"))
    try:
        make_network()
        nginx.start()
        for label, server, link, other in (("cellular", CELL_SERVER, CELL, WIFI), ("wifi", WIFI_SERVER, WIFI, CELL)):
            before, other_before = kernel_bytes(link), kernel_bytes(other)
            body = download(server, "f20.bin") + upload(server, "f8.bin", nginx.directory)
            moved, stray = kernel_bytes(link) - before, kernel_bytes(other) - other_before
            figures.append((f"setup: curl to {server} (20 MiB down, 8 MiB up) on {link}: bodies vs link", body, moved,
                            (body - moved) / moved if moved else None, "info"))
            if moved < body:
                fail("setup", f"{link} moved {moved} bytes for {body} bytes of bodies")
            if stray > 64 * 1024:
                fail("setup", f"traffic to {server} also moved {stray} bytes on {other}")
        if upload(CELL_SERVER, "f1.bin", nginx.directory) and sha256(os.path.join(nginx.www, "upload", "f1.bin")) != nginx.digests["f1.bin"]:
            fail("setup", "the uploaded file differs")
        index, _ = link_info(CELL)
        delete_link(CELL)
        create_link(CELL)
        new_index, total = link_info(CELL)
        download(CELL_SERVER, "f1.bin")
        figures.append((f"setup: vcell0 re-created (ifindex {index} -> {new_index}), 1 MiB: its counters", kernel_bytes(CELL), total, None, "info"))
        if new_index == index:
            fail("setup", "vcell0 came back with the same ifindex")
        clock = FakeClock(os.path.join(directory, "faketime"), find_libfaketime())
        if os.access(DAEMON, os.X_OK):
            check_faketime(clock)
            ok("setup: libfaketime", "reach-daemon keeps its arguments, the offset applies")
        else:
            say(f"     (no {DAEMON}: libfaketime not checked with it)")
    except (Problem, OSError, ValueError, KeyError, subprocess.SubprocessError) as error:
        fail("setup", f"{type(error).__name__}: {error}")
    finally:
        nginx.stop()
        delete_namespaces()
    print_figures()
    say(f"setup only: {len(failures)} failure(s)")
    return 1 if failures else 0


def main():
    parser = argparse.ArgumentParser(description="data budgets against a real daemon, nginx and the kernel's counters")
    parser.add_argument("--setup-only", action="store_true", help="build and tear down the network, nginx and the clock; no daemon")
    arguments = parser.parse_args()

    missing = missing_prerequisites()
    if missing:
        if CI:
            print(f"check-budgets: FAIL missing under CI=true: {', '.join(missing)}", file=sys.stderr)
            return 1
        say(f"skipped: missing {', '.join(missing)} (CI=true makes this a failure)")
        return 0
    if not arguments.setup_only and not os.access(DAEMON, os.X_OK):
        print(f"check-budgets: FAIL no daemon at {DAEMON} (swift build --product reach-daemon, or set REACH_BIN_DIR)", file=sys.stderr)
        return 1

    directory = tempfile.mkdtemp(prefix="check-budgets.", dir="/tmp")  # short: a socket path has at most 107 bytes
    os.chmod(directory, 0o755)
    for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(signum, lambda signum, frame: sys.exit(128 + signum))
    if arguments.setup_only:
        shared_before = faketime_files()
        try:
            return setup_only(directory)
        finally:
            remove_faketime_files(shared_before)
            shutil.rmtree(directory, ignore_errors=True)

    clock = FakeClock(os.path.join(directory, "faketime"), find_libfaketime())
    nginx = Nginx(os.path.join(directory, "nginx"))
    daemon = Daemon(directory, clock)
    watcher = HookWatcher(daemon.record)
    shared_before = faketime_files()
    started = time.monotonic()
    try:
        try:
            check_faketime(clock)
            make_network()
            nginx.start()
            daemon.start()
            watcher.start()
            context = Context(directory, daemon, nginx, clock, watcher)

            wait_cellular(context)
        except (Problem, RuntimeError, OSError, ValueError, subprocess.SubprocessError) as error:
            fail("setup", f"{type(error).__name__}: {error}")
            print(f"check-budgets: the daemon's log ends:\n{daemon.log()}", file=sys.stderr)
            return 1
        # c moves the daemon's clock for good: it runs last (see the module's notes).
        for check in (check_a_counting, check_b_warning, check_d_restart, check_e_recreate, check_f_fresh, check_c_held):
            before = len(failures)
            try:
                if daemon.process is None or daemon.process.poll() is not None:
                    daemon.start()
                check(context)
            except (Problem, RuntimeError, OSError, ValueError, KeyError, TypeError, subprocess.SubprocessError, http.client.HTTPException) as error:
                fail(check.__name__, f"{type(error).__name__}: {error}")
            if len(failures) > before:
                print(f"check-budgets: the daemon's log ends ({check.__name__}):\n{daemon.log()}", file=sys.stderr, flush=True)
    finally:
        watcher.stopping.set()
        daemon.stop()
        nginx.stop()
        delete_namespaces()
        remove_faketime_files(shared_before)
        shutil.rmtree(directory, ignore_errors=True)
    print_figures()
    say(f"{len(failures)} failure(s) in {time.monotonic() - started:.0f} s")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
