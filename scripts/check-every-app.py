#!/usr/bin/env python3
"""Every Linux program benefits (issue #20), checked against a real daemon in a private network
namespace: two veth uplinks, d0 overridden as cellular (the default route) and d1 as Wi-Fi.

1. The GIO module (libgioreach.so, GIO_EXTRA_MODULES, REACH_SOCKET), read by Debian's
   /usr/bin/python3 with PyGObject: metered on the cellular path; not metered within 1 s of the
   default route moving to Wi-Fi; can_reach (sync and async) per destination: a host routed over
   d1, one behind an `unreachable` route; falls back to GLib's own monitor, quickly, without a
   daemon and with a daemon that accepts but never answers; across a daemon restart (SIGTERM,
   14 s without a daemon) it answers as GLib's monitor does while the daemon is down, and the
   daemon's answer again within 1.5 s of its return.
2. Debian's `unattended-upgrade --dry-run` stops ("System is on metered connection") on the
   cellular path, and not on Wi-Fi (it starts its work: then it is ended, and it has no apt
   sources, so there is nothing to calculate or fetch).
3. The path socket: `nobody` reads /v1/path there, gets 403 for /v1/jobs, and cannot connect to
   the control socket.
4. Dispatcher hooks: run in name order with the REACH_* environment; a group-writable hook is
   refused with a warning; a hanging one is killed after the timeout and the next hook and the
   next change still run; how long after the route change the first hook started.
5. The recipes in dist/recipes/: the snapd and SWUpdate hooks emit the right commands (fakes on
   PATH record them), the Mender state script answers 21 on the cellular path and 0 on Wi-Fi.

Needs root (namespaces, `setpriv`); exits 1 listing every failure. Prints figures and writes
them as JSON to $CHECK_EVERY_APP_JSON when set.
"""
import collections, json, os, shutil, signal, socket, stat, subprocess, sys, tempfile, threading, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from daemon_process import DaemonProcess, die_with_parent

DAEMON = os.environ.get("REACH_DAEMON") or os.path.join(ROOT, ".build", "debug", "reach-daemon")
REACH = os.environ.get("REACH_CLI") or os.path.join(ROOT, ".build", "debug", "reach")
# The module as the package ships it: linked by the C compiler (scripts/package/build-gio-module.sh).
MODULE = os.environ.get("REACH_GIO_MODULE") or subprocess.run(
    [os.path.join(ROOT, "scripts", "package", "build-gio-module.sh")], check=True, capture_output=True, text=True).stdout.strip()
PYTHON = "/usr/bin/python3"  # Debian's, with gi (a pyenv python on PATH may lack it)
NS = "reach-every-app"
failures = []
figures = {}


def fail(where, message):
    failures.append(f"{where}: {message}")
    print(f"check-every-app: FAIL {where}: {message}", file=sys.stderr, flush=True)


def ok(where, detail=""):
    print(f"check-every-app: ok   {where}{': ' + detail if detail else ''}", flush=True)


def ns(*command, check=True):
    return subprocess.run(["ip", "netns", "exec", NS, *command], check=check, capture_output=True, text=True)


def make_namespace():
    subprocess.run(["ip", "netns", "del", NS], capture_output=True)
    subprocess.run(["ip", "netns", "add", NS], check=True)
    for name, address in (("d0", "10.9.0.2/24"), ("d1", "10.9.1.2/24")):
        ns("ip", "link", "add", name, "type", "veth", "peer", "name", name + "p")
        ns("ip", "link", "set", name + "p", "up")
        ns("ip", "addr", "add", address, "dev", name)
        ns("ip", "link", "set", name, "up")
    ns("ip", "link", "set", "lo", "up")
    ns("ip", "route", "add", "default", "via", "10.9.0.1", "dev", "d0", "metric", "100")
    ns("ip", "route", "add", "10.77.0.0/24", "via", "10.9.1.1", "dev", "d1")  # a host reached over Wi-Fi
    ns("ip", "route", "add", "unreachable", "10.66.0.0/16")  # a host nothing reaches


def move_default_to_wifi():
    ns("ip", "route", "add", "default", "via", "10.9.1.1", "dev", "d1", "metric", "10")


def move_default_to_cellular():
    ns("ip", "route", "del", "default", "via", "10.9.1.1", "dev", "d1", "metric", "10")


class Daemon(DaemonProcess):
    description = "the daemon (in the test's namespace)"

    def __init__(self, directory, hooks):
        super().__init__(directory, os.path.join(directory, "daemon.log"))
        self.hooks = hooks
        self.path_socket = os.path.join(directory, "run", "path.sock")

    def log_text(self):
        with open(self.log_path, "rb") as handle:
            return handle.read().decode("utf-8", "replace")

    def command(self):
        return ["ip", "netns", "exec", NS, DAEMON, "daemon", "--state-dir", os.path.join(self.directory, "state"),
                "--socket", self.socket_path, "--override", "d0=cellular", "--override", "d1=wifi", "--no-wifi-facts",
                "--dispatcher-dir", self.hooks, "--dispatcher-timeout", "2"]


def module_environment(socket_path, module_directory):
    environment = dict(os.environ, GIO_EXTRA_MODULES=module_directory, REACH_SOCKET=socket_path)
    environment.pop("GIO_USE_NETWORK_MONITOR", None)
    return environment


class GioClient:
    """gio_client.py running, its JSON lines collected by a thread."""

    def __init__(self, environment, hosts=(), namespace=None):
        self.lines = []
        # What else it printed: GLib writes g_debug's lines to standard output.
        self.other = []
        self.lock = threading.Condition()
        prefix = ["ip", "netns", "exec", namespace] if namespace else []
        self.process = subprocess.Popen([*prefix, PYTHON, os.path.join(ROOT, "scripts", "gio_client.py"), *hosts], env=environment,
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                        preexec_fn=die_with_parent)
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for raw in self.process.stdout:
            try:
                value = json.loads(raw)
            except ValueError:
                with self.lock:
                    self.other.append(raw.decode("utf-8", "replace").rstrip())
                continue
            with self.lock:
                self.lines.append(value)
                self.lock.notify_all()

    def wait_for(self, predicate, timeout):
        deadline = time.monotonic() + timeout
        with self.lock:
            while True:
                for line in self.lines:
                    if predicate(line):
                        return line
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return None
                self.lock.wait(remaining)

    def stop(self):
        if self.process.poll() is None:
            self.process.stdin.close()
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        return self.process.stderr.read().decode("utf-8", "replace")


def check_module(daemon, module_directory):
    where = "gio module"
    environment = module_environment(daemon.socket_path, module_directory)
    client = GioClient(environment, hosts=["10.77.0.5", "10.66.0.1"])
    try:
        start = client.wait_for(lambda line: line["event"] == "start", 15)
        if start is None:
            fail(where, f"no answer from the GLib program: {client.stop()[-1500:]}")
            return
        figures["module_get_default_s"] = start["get_default_s"]
        if start["type"] != "ReachNetworkMonitor":
            fail(where, f"GLib chose {start['type']}, not the module's ReachNetworkMonitor")
        if start["metered"] is not True or start["available"] is not True:
            fail(where, f"on the cellular path: {start}")
        else:
            ok(where + ": metered on cellular", f"get_default took {start['get_default_s']} s")
        reach = start["can_reach"]
        if reach.get("10.77.0.5") is not True or reach.get("10.77.0.5 async") is not True:
            fail(where + " can_reach", f"10.77.0.5 (routed over d1): {reach}")
        elif not str(reach.get("10.66.0.1")).startswith("error") or not str(reach.get("10.66.0.1 async")).startswith("error"):
            fail(where + " can_reach", f"10.66.0.1 (an unreachable route): {reach}")
        else:
            ok(where + ": can_reach per destination", f"{reach}")
        moved_at = time.time()
        move_default_to_wifi()
        change = client.wait_for(lambda line: line["event"] == "change" and line["metered"] is False, 5)
        if change is None:
            fail(where, f"not metered within 5 s of the move to Wi-Fi: {client.lines}")
        else:
            delay = change["time"] - moved_at
            figures["module_unmetered_after_s"] = round(delay, 3)
            if delay > 1.0:
                fail(where, f"not metered {delay:.3f} s after the move to Wi-Fi (at most 1 s)")
            else:
                ok(where + ": not metered after the move to Wi-Fi", f"{delay * 1000:.0f} ms")
        move_default_to_cellular()
        back = client.wait_for(lambda line: line["event"] == "change" and line["metered"] is True and line["time"] > moved_at, 5)
        if back is None:
            fail(where, "not metered again after the move back to cellular")
        rss = module_rss(environment)
        if rss is not None:
            figures["module_rss_kib"] = rss
            ok(where + ": RSS the module adds to its host", f"{rss} KiB")
    finally:
        client.stop()


def check_module_restart(daemon, module_directory):
    """Across a daemon restart (issue 34): on cellular, SIGTERM; while no daemon runs the module
    answers as GLib's netlink monitor does (not metered, and its g_debug says so), not with its
    last answer; 14 s later the daemon is back and the module says metered within 1.5 s of its
    socket accepting (it took 17 s, retrying at 1, 2, 4, 8, 16 s)."""
    where = "gio module across a restart"
    environment = dict(module_environment(daemon.socket_path, module_directory), G_MESSAGES_DEBUG="all")
    # In the namespace: GLib's own monitor then reads the namespace's routes.
    client = GioClient(environment, namespace=NS)
    try:
        start = client.wait_for(lambda line: line["event"] == "start", 15)
        if start is None or start["type"] != "ReachNetworkMonitor" or start["metered"] is not True:
            fail(where, f"not the module, metered, on cellular: {start}: {client.stop()[-1500:]}")
            return
        stopped = time.time()
        daemon.stop()
        fallen = client.wait_for(lambda line: line["event"] == "change" and line["time"] > stopped and line["metered"] is False, 5)
        if fallen is None:
            fail(where, f"still metered (the daemon's last answer) 5 s after it stopped: {client.lines}")
        else:
            figures["module_fallback_after_stop_s"] = round(fallen["time"] - stopped, 3)
            ok(where + ": GLib's own answer while the daemon is down", f"{fallen['time'] - stopped:.3f} s after SIGTERM")
        move_default_to_wifi()
        time.sleep(1)
        move_default_to_cellular()
        time.sleep(max(0, stopped + 14 - time.time()))
        daemon.start()
        back_at = time.time()
        back = client.wait_for(lambda line: line["event"] == "change" and line["time"] > back_at - 0.5 and line["metered"] is True, 20)
        if back is None:
            fail(where, f"not metered 20 s after the daemon came back: {client.lines[-5:]}")
        else:
            delay = back["time"] - back_at
            figures["module_caught_up_after_restart_s"] = round(delay, 3)
            if delay > 1.5:
                fail(where, f"metered again only {delay:.3f} s after the daemon came back (at most 1.5 s)")
            else:
                ok(where + ": the daemon's answer again after the restart", f"{delay:.3f} s")
    finally:
        errors = client.stop()
    said = [line for line in client.other if "answering from GNetworkMonitorNetlink" in line]
    if not said:
        fail(where, f"no g_debug line saying GLib's monitor answers: {client.other[-10:]} {errors[-1000:]}")
    else:
        ok(where + ": said so", said[0][:160])


def module_rss(environment):
    """The host program's RSS with the module (loaded and answering) minus without it (GLib's own
    netlink monitor, no module loaded): what mapping it, its NEEDED libraries and its state cost."""
    script = ("import resource, sys; from gi.repository import Gio; m = Gio.NetworkMonitor.get_default(); m.get_network_metered();"
              "print(type(m).__name__, open('/proc/self/status').read().split('VmRSS:')[1].split()[0])")
    values = {}
    without = {key: value for key, value in environment.items() if key not in ("GIO_EXTRA_MODULES", "REACH_SOCKET")}
    for label, env in (("with", environment), ("without", without)):
        samples = []
        for _ in range(3):
            out = subprocess.run([PYTHON, "-c", script], env=env, capture_output=True, text=True, timeout=30).stdout.split()
            if len(out) == 2:
                samples.append(int(out[1]))
        values[label] = min(samples) if samples else None
    if values["with"] is None or values["without"] is None:
        return None
    return values["with"] - values["without"]


def check_fallback(module_directory, directory):
    where = "gio module fallback"
    for label, socket_path, limit in (("no daemon", os.path.join(directory, "absent.sock"), 1.0),
                                      ("a daemon that never answers", os.path.join(directory, "mute.sock"), 1.5)):
        mute = None
        if label.startswith("a daemon"):
            mute = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            mute.bind(socket_path)
            mute.listen(8)
        client = GioClient(module_environment(socket_path, module_directory))
        start = client.wait_for(lambda line: line["event"] == "start", 15)
        errors = client.stop()
        if mute:
            mute.close()
        if start is None:
            fail(where, f"{label}: the GLib program did not start: {errors[-1500:]}")
        elif start["type"] == "ReachNetworkMonitor":
            fail(where, f"{label}: the module was chosen")
        elif start["get_default_s"] > limit:
            fail(where, f"{label}: get_default took {start['get_default_s']} s (at most {limit})")
        else:
            figures[f"fallback_{'absent' if mute is None else 'mute'}_s"] = start["get_default_s"]
            ok(f"{where}: {label}", f"{start['type']} after {start['get_default_s']} s")


def check_hostile_peer(module_directory, directory):
    """Whoever answers on the socket is not trusted (issue 35): a line nested 200,000 deep (in
    the event stream and in a route answer) does not crash the GLib program, a peer trickling a
    byte every 0.9 s does not hold get_default() past the module's 1 s, and a socket of another
    user is told nothing at all."""
    where = "gio module against a hostile peer"
    peer_script = os.path.join(ROOT, "scripts", "testservers", "hostile_path_peer.py")
    cases = (("deep-events", [], None), ("deep-route", ["192.0.2.1"], None), ("trickle", [], None), ("any", [], "nobody"))
    for mode, hosts, user in cases:
        home = os.path.join(directory, f"hostile-{mode}")
        os.makedirs(home, exist_ok=True)
        socket_path, record = os.path.join(home, "reach.sock"), os.path.join(home, "record")
        prefix = ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"] if user else []
        if user:
            shutil.chown(home, "nobody", "nogroup")
        peer = subprocess.Popen([*prefix, PYTHON, "-u", peer_script, socket_path, mode, "--record", record],
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, preexec_fn=die_with_parent)
        try:
            if not peer.stdout.readline().startswith("listening"):
                fail(where, f"{mode}: the hostile peer did not start")
                continue
            client = GioClient(module_environment(socket_path, module_directory), hosts=hosts)
            start = client.wait_for(lambda line: line["event"] == "start", 15)
            errors = client.stop()
            code = client.process.returncode
            if start is None or code not in (0, None) and code < 0:
                fail(where, f"{mode}: the GLib program died (exit {code}): {errors[-800:]}")
            elif start["get_default_s"] > 1.5:
                fail(where, f"{mode}: get_default took {start['get_default_s']} s (at most 1.5)")
            elif user and open(record).read().strip() not in ("", "(connected, nothing sent)"):
                fail(where, f"{mode}: sent {open(record).read().strip()!r} to a socket of uid nobody")
            elif user and start["type"] == "ReachNetworkMonitor":
                fail(where, f"{mode}: the module trusted a socket of uid nobody")
            else:
                figures[f"hostile_{mode.replace('-', '_')}_get_default_s"] = start["get_default_s"]
                ok(f"{where}: {mode}", f"{start['type']} after {start['get_default_s']} s, exit {code}")
        finally:
            peer.kill()
            peer.wait()


# Lines unattended-upgrade logs on either side of its first should_stop(): the metered stop, or
# the start of the work that check is there to hold back.
UU_STOPPED = "System is on metered connection, stopping"
UU_WENT_ON = "Starting unattended upgrades script"
UU_LIMIT_S = 120


def unattended_upgrades_apt_config(directory):
    """An APT_CONFIG that leaves unattended-upgrade nothing to fetch: no sources, its own empty
    lists and cache (the system's apt.conf.d, with the metered check's setting, is still read)."""
    for name in ("lists/partial", "cache/archives/partial", "sources.list.d"):
        os.makedirs(os.path.join(directory, name), exist_ok=True)
    open(os.path.join(directory, "sources.list"), "w").close()
    path = os.path.join(directory, "apt.conf")
    with open(path, "w") as handle:
        handle.write(f'''Dir::Etc::sourcelist "{directory}/sources.list";
Dir::Etc::sourceparts "{directory}/sources.list.d";
Dir::State::lists "{directory}/lists";
Dir::Cache "{directory}/cache";
Acquire::http::Proxy "http://127.0.0.1:9";
''')
    return path


def unattended_upgrade_verdict(environment):
    """Runs `unattended-upgrade --dry-run --debug` until it says whether it stopped as metered
    ('stopped') or went on to work ('went on'; it is then ended: the work itself is not what
    this check is about), or UU_LIMIT_S seconds pass (None, with the output's tail)."""
    process = subprocess.Popen(["unattended-upgrade", "--dry-run", "--debug"], env=environment, stdin=subprocess.DEVNULL,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, preexec_fn=die_with_parent)
    lines, verdict, said = collections.deque(maxlen=8), [], threading.Event()

    def read():
        # Reads to the end, so the process never blocks on a full pipe once it has been answered.
        for line in process.stdout:
            lines.append(line.rstrip())
            if not said.is_set() and (UU_STOPPED in line or UU_WENT_ON in line):
                verdict.append("stopped" if UU_STOPPED in line else "went on")
                said.set()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    said.wait(UU_LIMIT_S)
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    reader.join(5)
    return (verdict[0] if verdict else None), list(lines)


def check_unattended_upgrades(daemon, module_directory):
    where = "unattended-upgrade --dry-run"
    if shutil.which("unattended-upgrade") is None:
        fail(where, "unattended-upgrades is not installed (scripts/test.sh installs it)")
        return
    results = {}
    with tempfile.TemporaryDirectory(prefix="every-app-apt.") as apt:
        environment = dict(module_environment(daemon.socket_path, module_directory), APT_CONFIG=unattended_upgrades_apt_config(apt))
        for label in ("cellular", "wifi"):
            if label == "wifi":
                move_default_to_wifi()
                time.sleep(0.5)
            results[label] = unattended_upgrade_verdict(environment)
    move_default_to_cellular()
    for label, (verdict, tail) in results.items():
        if verdict is None:
            fail(where, f"on {label}: said neither {UU_STOPPED!r} nor {UU_WENT_ON!r} in {UU_LIMIT_S} s; its output ends: {tail}")
    if results["cellular"][0] == "went on":
        fail(where, "did not stop on the cellular path")
    elif results["wifi"][0] == "stopped":
        fail(where, "stopped as metered on Wi-Fi")
    elif results["cellular"][0] and results["wifi"][0]:
        ok(where, "stops on cellular (metered), goes on on Wi-Fi")


def check_path_socket(daemon):
    where = "path socket"

    def as_nobody(socket_path, target):
        run = subprocess.run(["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups", "curl", "-s", "-o", "/dev/null",
                              "-w", "%{http_code}", "--unix-socket", socket_path, "http://reach" + target],
                             capture_output=True, text=True, timeout=20)
        return run.returncode, run.stdout.strip()

    code, status = as_nobody(daemon.path_socket, "/v1/path")
    if (code, status) != (0, "200"):
        fail(where, f"nobody reading /v1/path: curl exit {code}, status {status}")
    code, jobs = as_nobody(daemon.path_socket, "/v1/jobs")
    if jobs != "403":
        fail(where, f"nobody listing jobs on the path socket: status {jobs}, expected 403")
    code, control = as_nobody(daemon.socket_path, "/v1/path")
    if code != 7:
        fail(where, f"nobody on the control socket: curl exit {code} (status {control}), expected 7 (cannot connect)")
    mode = stat.S_IMODE(os.stat(daemon.path_socket).st_mode)
    if mode != 0o666:
        fail(where, f"mode {oct(mode)}, expected 0o666")
    if not any(f.startswith(where) for f in failures):
        ok(where, "nobody reads the path (200), not jobs (403), cannot connect to the control socket")


HOOK_RECORD = """#!/bin/sh
echo "$(date +%s.%N) $(basename "$0") $1 $REACH_EVENT $REACH_STATUS $REACH_TYPE $REACH_INTERFACE $REACH_EXPENSIVE prev=$REACH_PREVIOUS_STATUS/$REACH_PREVIOUS_EXPENSIVE conn=$REACH_CONNECTIVITY socket=$REACH_SOCKET" >> "{record}"
echo "hello from $(basename "$0")"
"""


def write_hook(directory, name, text, mode):
    path = os.path.join(directory, name)
    with open(path, "w") as handle:
        handle.write(text)
    os.chmod(path, mode)


def check_dispatcher(daemon, hooks, record):
    where = "dispatcher"
    # At startup: 10 and 40 ran for `startup` (20 refused, 30 killed after 2 s).
    lines = wait_lines(record, lambda rows: sum(1 for row in rows if row[1] == "40-after") >= 1, 15)
    names = [row[1] for row in lines]
    if names[:2] != ["10-record", "40-after"]:
        fail(where, f"at startup ran {names}, expected 10-record then 40-after")
    if lines and lines[0][2:4] != ["startup", "startup"]:
        fail(where, f"startup's event: {lines[0]}")
    if lines and lines[0][4:8] != ["cellular", "cellular", "d0", "1"]:
        fail(where, f"startup's facts: {lines[0][4:8]}, expected cellular cellular d0 1")
    log = daemon.log_text()
    if "refusing" not in log or "20-group-writable" not in log:
        fail(where, "no warning refusing the group-writable hook")
    if "30-hang ran past" not in log:
        fail(where, f"no record of the hanging hook being killed: {log[-1500:]}")
    if "dispatcher: 10-record: hello from 10-record" not in log:
        fail(where, "a hook's output is not in the daemon's log")
    if any(row[1] == "20-group-writable" for row in lines):
        fail(where, "the group-writable hook ran")
    # A change after the hang: the hooks run again, with the previous facts.
    before = len(lines)
    moved = time.time()
    move_default_to_wifi()
    lines = wait_lines(record, lambda rows: len(rows) >= before + 2, 15)
    fresh = lines[before:]
    if [row[1] for row in fresh[:2]] != ["10-record", "40-after"]:
        fail(where, f"after the change ran {[row[1] for row in fresh]}")
    elif fresh[0][3:8] != ["change", "wifi", "wifi", "d1", "0"] or fresh[0][8] != "prev=cellular/1":
        fail(where, f"the change's facts: {fresh[0]}")
    else:
        started = float(fresh[0][0]) - moved
        figures["hook_start_after_change_ms"] = round(started * 1000, 1)
        ok(where, f"in order, right environment, refused and killed as they should be; first hook started {started * 1000:.0f} ms after the change")
        if started > 0.05:
            fail(where, f"the first hook started {started * 1000:.0f} ms after the change (at most 50 ms)")
    move_default_to_cellular()


def wait_lines(record, predicate, timeout):
    deadline = time.monotonic() + timeout
    rows = []
    while time.monotonic() < deadline:
        try:
            with open(record) as handle:
                rows = [line.split() for line in handle if line.strip()]
        except OSError:
            rows = []
        if predicate(rows):
            return rows
        time.sleep(0.05)
    return rows


def check_recipes(daemon, directory):
    recipes = os.path.join(ROOT, "dist", "recipes")
    fakes = os.path.join(directory, "fakes")
    os.makedirs(fakes, exist_ok=True)
    calls = os.path.join(directory, "calls")
    for tool in ("snap", "swupdate-ipc"):
        write_hook(fakes, tool, f'#!/bin/sh\necho "{tool} $*" >> "{calls}"\n', 0o755)
    for recipe, metered, unmetered in (
            ("snapd/50-reach-snap-refresh-hold", "snap refresh --hold", "snap refresh --unhold"),
            ("swupdate/50-reach-suricatta", "swupdate-ipc hawkbitcfg -d", "swupdate-ipc hawkbitcfg -e")):
        where = f"recipe {recipe}"
        said = []
        for expensive in ("1", "0"):
            if os.path.exists(calls):
                os.unlink(calls)
            environment = {"PATH": fakes + ":/usr/bin:/bin", "REACH_EVENT": "change", "REACH_EXPENSIVE": expensive,
                           "REACH_PREVIOUS_EXPENSIVE": "0" if expensive == "1" else "1", "REACH_STATUS": "cellular"}
            run = subprocess.run([os.path.join(recipes, recipe), "change"], env=environment, capture_output=True, text=True, timeout=20)
            said.append((run.returncode, open(calls).read().strip() if os.path.exists(calls) else ""))
        if said[0][0] != 0 or not said[0][1].startswith(metered):
            fail(where, f"on a metered path: {said[0]}, expected a call starting '{metered}'")
        elif said[1][0] != 0 or not said[1][1].startswith(unmetered):
            fail(where, f"on an unmetered path: {said[1]}, expected a call starting '{unmetered}'")
        else:
            ok(where, f"metered: '{said[0][1]}'; unmetered: '{said[1][1]}'")
    where = "recipe mender/ArtifactDownload_Enter_50_reach"
    script = os.path.join(recipes, "mender", "ArtifactDownload_Enter_50_reach")
    environment = dict(os.environ, REACH_SOCKET=daemon.socket_path, PATH=os.path.dirname(REACH) + ":" + os.environ.get("PATH", ""))
    on_cellular = subprocess.run([script], env=environment, capture_output=True, text=True, timeout=30)
    move_default_to_wifi()
    time.sleep(0.5)
    on_wifi = subprocess.run([script], env=environment, capture_output=True, text=True, timeout=30)
    move_default_to_cellular()
    if on_cellular.returncode != 21:
        fail(where, f"exit {on_cellular.returncode} on the cellular path, expected 21: {on_cellular.stderr.strip()}")
    elif on_wifi.returncode != 0:
        fail(where, f"exit {on_wifi.returncode} on Wi-Fi, expected 0: {on_wifi.stderr.strip()}")
    else:
        ok(where, "21 (retry later) on cellular, 0 on Wi-Fi")


def main():
    if os.geteuid() != 0:
        print("check-every-app: needs root (network namespaces, setpriv)", file=sys.stderr)
        return 1
    for path, what in ((DAEMON, "reach-daemon"), (REACH, "reach"), (MODULE, "libgioreach.so")):
        if not os.path.exists(path):
            print(f"check-every-app: {what} is not built ({path})", file=sys.stderr)
            return 1
    directory = tempfile.mkdtemp(prefix="every-app.", dir="/tmp")
    os.chmod(directory, 0o755)  # `nobody` must reach the path socket below it
    module_directory = os.path.join(directory, "gio")
    os.makedirs(module_directory)
    shutil.copy(MODULE, module_directory)  # GIO_EXTRA_MODULES loads every .so of a directory
    hooks = os.path.join(directory, "hooks")
    os.makedirs(hooks, mode=0o755)
    record = os.path.join(directory, "hooks.record")
    write_hook(hooks, "10-record", HOOK_RECORD.format(record=record), 0o755)
    write_hook(hooks, "20-group-writable", HOOK_RECORD.format(record=record), 0o775)
    write_hook(hooks, "30-hang", "#!/bin/sh\nexec sleep 30\n", 0o755)
    write_hook(hooks, "40-after", HOOK_RECORD.format(record=record), 0o755)
    write_hook(hooks, "50-disabled.dpkg-old", HOOK_RECORD.format(record=record), 0o755)
    daemon = None
    try:
        make_namespace()
        daemon = Daemon(directory, hooks)
        daemon.start()
        check_dispatcher(daemon, hooks, record)
        # Further changes keep the hooks busy (30-hang takes 2 s each time): the checks below
        # also show that a slow hook delays neither the path nor the API.
        check_module(daemon, module_directory)
        check_module_restart(daemon, module_directory)
        check_fallback(module_directory, directory)
        check_hostile_peer(module_directory, directory)
        check_path_socket(daemon)
        check_unattended_upgrades(daemon, module_directory)
        check_recipes(daemon, directory)
    except Exception as error:  # a broken setup is a failure, never a skip
        fail("setup", f"{type(error).__name__}: {error}")
    finally:
        if daemon:
            daemon.stop()
        subprocess.run(["ip", "netns", "del", NS], capture_output=True)
        if failures and daemon:
            print(f"check-every-app: the daemon's log ends:\n{daemon.log()}", file=sys.stderr)
        shutil.rmtree(directory, ignore_errors=True)
    if os.environ.get("CHECK_EVERY_APP_JSON"):
        with open(os.environ["CHECK_EVERY_APP_JSON"], "w") as handle:
            json.dump({"figures": figures, "failures": failures}, handle, indent=2)
    print(f"check-every-app: {len(failures)} failure(s); figures: {json.dumps(figures)}", flush=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
