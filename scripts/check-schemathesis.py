#!/usr/bin/env python3
"""Runs schemathesis against a live daemon with every check on; exits 1 listing every failure.

The contract is the server: openapi/reach-daemon.yaml must describe exactly what the daemon
accepts and answers, so schemathesis, generating requests from the document (valid ones and
invalid ones) and checking every answer against it, must find nothing.

1. The built daemon (.build/debug/reach-daemon, or $REACH_DAEMON) is started on a socket and
   state directory in a temporary directory, in a private network namespace (`unshare --net`:
   only a loopback interface, down) so that no job the fuzzer adds can reach any network: the
   path is `unreachable` and every download, upload and command waits (`waitingForNetwork`).
   As root it also runs as `nobody` (setpriv), so a job or a cancel (which removes a
   download's `DEST.part`) cannot touch files of anyone else; the peer check serves root.
   Without root the namespace is a user namespace's (`--map-root-user`). No namespace, no run.
2. Schemathesis speaks TCP: a forwarder thread on 127.0.0.1 (an ephemeral port) relays each
   connection byte for byte to the daemon's Unix socket. One exception: the event stream
   (`/v1/events`, which never ends) is cut after its first line, a complete chunked answer, so
   that the one line is checked instead of the request timing out.
3. `schemathesis run` with `--checks all`, a fixed seed and a bounded number of examples per
   operation, on one worker (two threads race in Hypothesis's lambda descriptions on Python
   3.11); about 90 s on two cores. One allowance, in the schemathesis.toml written for the run:
   `PUT /v1/budgets/{name}` may answer `400` to a schema-valid body (a warning above the limit
   or a reserve not below it, which no JSON Schema can state), and so may `POST /v1/jobs`, but
   only for an upload's file or a command's working directory that does not exist (a check of
   this file's own holds it to that). Schemathesis's failures and errors are printed (each with a
   curl line that reproduces it), then one line per failure from its JSON report (a contract
   warning, a daemon that died or stopped answering, or a job that ran counts too), then a
   one-line summary: operations, cases, failures, seconds.

Runs under the venv of scripts/testservers/setup.sh (.build/testservers-venv), which has
schemathesis; re-executes itself with that interpreter when started with another one. Only
loopback TCP and Unix-socket traffic. `--seed N`, `--max-examples N` and `--workers N` override
the defaults; with $CHECK_SCHEMATHESIS_OUTPUT=FILE, schemathesis's output goes to FILE and its
reports to FILE.report.json and FILE.events.ndjson (every case, for `st replay`-like digging).
"""
import os, sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
VENV = os.path.join(ROOT, ".build", "testservers-venv")

# The venv's pinned versions when it is there, whatever python3 is first on PATH.
_python = os.path.join(VENV, "bin", "python")
if __name__ == "__main__" and os.path.abspath(sys.prefix) != os.path.abspath(VENV) and os.access(_python, os.X_OK):
    os.execv(_python, [_python, os.path.abspath(__file__)] + sys.argv[1:])
try:
    import schemathesis
except ImportError:
    print("check-schemathesis: schemathesis is missing: run scripts/testservers/setup.sh", file=sys.stderr)
    sys.exit(1)

import argparse, atexit, json, re, pwd, shutil, signal, socket, socketserver, subprocess, tempfile, threading, time
# Schemathesis loads this file as its hooks module, with its own sys.path: the helper is found
# beside the script either way.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from daemon_process import DaemonProcess

if __name__ != "__main__":
    # Loaded by schemathesis as its hooks file (SCHEMATHESIS_HOOKS=this file): the event
    # stream's answer, cut by the forwarder after its first line, is that line's object, which
    # the response schema (`EventLine`, the schema of one line) is checked against.
    @schemathesis.deserializer("application/x-ndjson")
    def _ndjson(ctx, response):
        text = response.content
        if not text.endswith(b"\n") or text.count(b"\n") != 1:
            raise ValueError(f"expected one JSON line ending in a newline: {text[:200]!r}")
        return json.loads(text)

    @schemathesis.check
    def jobs_refused_only_for_a_missing_path(ctx, response, case):
        """`POST /v1/jobs` may answer `400` to a schema-valid job (the allowance in CONFIGURATION)
        only for what no schema can state: an upload's file or a command's working directory
        that does not exist, or a download's directory the daemon (here `nobody`) may not write.
        Any other refusal of a valid job is a contract failure."""
        meta = case.meta
        if case.method.upper() != "POST" or case.path != "/v1/jobs" or response.status_code != 400:
            return None
        if meta is None or not meta.generation.mode.is_positive:
            return None
        message = response.json().get("error", {}).get("message", "")
        if not MISSING_PATH.match(message):
            raise AssertionError(f"a schema-valid job was refused for another reason than a missing path: {message[:300]}")
        return None

# The refusals of a schema-valid job the document allows (see ClientFileView.swift).
MISSING_PATH = re.compile(r"^((file|workingDirectory): '.*' does not exist|destination: the daemon \(uid \d+\) may not create files in '.*')",
                          re.DOTALL)
DOCUMENT = os.path.join(ROOT, "openapi", "reach-daemon.yaml")
DAEMON = os.environ.get("REACH_DAEMON") or os.path.join(ROOT, ".build", "debug", "reach-daemon")
SCHEMATHESIS = os.path.join(os.path.dirname(sys.executable), "schemathesis")
SEED = 19
MAX_EXAMPLES = 500  # about 6,200 cases, 85-95 s on two cores (1,000: 11,700 cases, 135-180 s)
RUN_TIMEOUT = 600  # a hung run is a failure, not a hung test suite
# What no JSON Schema can state: a budget's `warningBytes` at most its `limitBytes` and its
# `reserveBytes` below it; a job's upload file or working directory that does not exist, or a
# download directory the daemon may not write (and
# jobs_refused_only_for_a_missing_path holds that allowance to exactly that). A body that breaks
# one is schema-valid and a documented `400`.
CONFIGURATION = """[[operations]]
include-path = "/v1/budgets/{name}"
include-method = "PUT"
checks.positive_data_acceptance.expected-statuses = ["2xx", "400", "401", "403", "404", "409", "429", "5xx"]

[[operations]]
include-path = "/v1/jobs"
include-method = "POST"
checks.positive_data_acceptance.expected-statuses = ["2xx", "400", "401", "403", "404", "409", "429", "5xx"]
"""


# The bridge: TCP on loopback to the daemon's Unix socket.

class Forwarder(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, socket_path):
        self.socket_path = socket_path
        super().__init__(("127.0.0.1", 0), Relay)

    @property
    def port(self):
        return self.server_address[1]


class Relay(socketserver.BaseRequestHandler):
    def handle(self):
        client = self.request
        # The daemon writes an answer's head and body apart: without this, Nagle's algorithm
        # holds the body back until the client's delayed ACK (40 ms an answer).
        client.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            upstream.connect(self.server.socket_path)
        except OSError:
            client.close()
            return
        requests = threading.Thread(target=pump, args=(client, upstream), daemon=True)
        requests.start()
        try:
            relay_answers(upstream, client)
        finally:
            requests.join(timeout=5)
            for end in (upstream, client):
                try:
                    end.close()
                except OSError:
                    pass


def pump(source, sink):
    """Bytes from `source` to `sink` until `source` ends; then `sink`'s writing half is shut."""
    try:
        while True:
            data = source.recv(65536)
            if not data:
                break
            sink.sendall(data)
    except OSError:
        pass
    try:
        sink.shutdown(socket.SHUT_WR)
    except OSError:
        pass


def relay_answers(upstream, client):
    """The daemon's answers to the client, as they come, except an event stream's: its head
    and its first chunks up to the end of the first line, then the last chunk, then the
    connection is closed (a finite, complete answer the checks can read)."""
    try:
        while True:
            data = upstream.recv(65536)
            if not data:
                break
            if data.startswith(b"HTTP/1."):
                while b"\r\n\r\n" not in data:
                    more = upstream.recv(65536)
                    if not more:
                        break
                    data += more
                head, _, rest = data.partition(b"\r\n\r\n")
                lowered = head.lower()
                if b"application/x-ndjson" in lowered and b"transfer-encoding: chunked" in lowered:
                    # `Connection: close`, so that the client does not send its next request
                    # on a connection whose answer is still streaming.
                    lines = [line for line in head.split(b"\r\n") if not line.lower().startswith(b"connection:")]
                    head = b"\r\n".join(lines + [b"Connection: close"])
                    client.sendall(head + b"\r\n\r\n" + first_line_chunks(upstream, rest) + b"0\r\n\r\n")
                    for end in (client, upstream):
                        try:
                            end.shutdown(socket.SHUT_RDWR)
                        except OSError:
                            pass
                    return
            client.sendall(data)
    except OSError:
        pass
    try:
        client.shutdown(socket.SHUT_WR)
    except OSError:
        pass


def first_line_chunks(upstream, buffer):
    """The complete chunks (size line, data, CRLF) up to and including the one whose data ends
    a line; reads on from `upstream` as needed."""
    taken = b""
    body = b""
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        size_end = buffer.find(b"\r\n")
        if size_end >= 0:
            size = int(buffer[:size_end].split(b";")[0], 16)
            end = size_end + 2 + size + 2
            if size == 0 or len(buffer) >= end:
                if size == 0:
                    return taken
                taken += buffer[:end]
                body += buffer[size_end + 2:end - 2]
                buffer = buffer[end:]
                if body.endswith(b"\n"):
                    return taken
                continue
        upstream.settimeout(max(0.1, deadline - time.monotonic()))
        more = upstream.recv(65536)
        if not more:
            break
        buffer += more
    return taken


# The daemon, in a namespace of its own.

class Daemon(DaemonProcess):
    description = "the daemon (in a private network namespace)"

    def __init__(self, directory):
        super().__init__(directory, os.path.join(os.path.dirname(directory), os.path.basename(directory) + ".log"))

    def command(self):
        daemon = [DAEMON, "daemon", "--state-dir", os.path.join(self.directory, "state"), "--socket", self.socket_path,
                  "--no-wifi-facts"]
        if os.geteuid() == 0:
            nobody = pwd.getpwnam("nobody")
            os.chown(self.directory, nobody.pw_uid, nobody.pw_gid)
            return ["unshare", "--net", "--", "setpriv", f"--reuid={nobody.pw_uid}", f"--regid={nobody.pw_gid}",
                    "--clear-groups", "--pdeathsig=SIGTERM", "--"] + daemon
        return ["unshare", "--net", "--map-root-user", "--"] + daemon

    def path_status(self):
        """The daemon's path status (`unreachable` in its namespace), over the socket."""
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as connection:
            connection.settimeout(10)
            connection.connect(self.socket_path)
            connection.sendall(b"GET /v1/path HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
            answer = b""
            while chunk := connection.recv(65536):
                answer += chunk
        return json.loads(answer.partition(b"\r\n\r\n")[2]).get("status")


# The report.

# Warnings that say the document itself is wrong or unusable (the others, such as an id that
# answers 404, describe the data the run happened to have).
CONTRACT_WARNINGS = ("missing_deserializer", "unsupported_regex", "unresolvable_reference", "validation_mismatch",
                     "base_url_mismatch", "unused_openapi_auth")


def sections(output, *names):
    """The text of schemathesis's `=== NAME ===` sections (its failures and errors, each with
    the answer and a curl line that reproduces it)."""
    found = []
    current = None
    for line in output.splitlines():
        stripped = line.strip()
        if stripped.startswith("===") and stripped.endswith("==="):
            title = stripped.strip("= ").upper()
            current = [] if title in names else None
            if current is not None:
                found.append((title, current))
            continue
        if current is not None:
            current.append(line)
    return [(title, "\n".join(lines).strip()) for title, lines in found]


def leftover_jobs(socket_path):
    """Jobs that ran (`running` or `succeeded`): none may, with no network in the namespace."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as connection:
        connection.settimeout(10)
        connection.connect(socket_path)
        connection.sendall(b"GET /v1/jobs?state=running,succeeded&view=summary HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
        answer = b""
        while chunk := connection.recv(65536):
            answer += chunk
    return json.loads(answer.partition(b"\r\n\r\n")[2])["jobs"]


def main():
    parser = argparse.ArgumentParser(description="schemathesis against a live reach-daemon")
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--max-examples", type=int, default=MAX_EXAMPLES)
    parser.add_argument("--workers", default="1")
    arguments = parser.parse_args()

    if not os.access(DAEMON, os.X_OK):
        print(f"check-schemathesis: no daemon at {DAEMON} (swift build --product reach-daemon)", file=sys.stderr)
        return 1
    if shutil.which("unshare") is None or (os.geteuid() == 0 and shutil.which("setpriv") is None):
        print("check-schemathesis: unshare (and setpriv as root) from util-linux are needed to keep the jobs offline", file=sys.stderr)
        return 1

    parent = tempfile.mkdtemp(prefix="check-schemathesis.", dir="/tmp")  # short: a socket path has at most 107 bytes
    os.chmod(parent, 0o755)  # nobody must reach its own directory inside
    directory = os.path.join(parent, "daemon")
    os.mkdir(directory, 0o700)
    daemon = Daemon(directory)
    forwarder = None

    def cleanup():
        if forwarder is not None:
            forwarder.shutdown()
            forwarder.server_close()
        daemon.stop()
        shutil.rmtree(parent, ignore_errors=True)

    atexit.register(cleanup)
    for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(signum, lambda signum, frame: sys.exit(128 + signum))

    try:
        daemon.start()
        status = daemon.path_status()
        if status != "unreachable":
            print(f"check-schemathesis: the daemon's path is {status!r}, not 'unreachable': refusing to let jobs run", file=sys.stderr)
            return 1
    except (RuntimeError, OSError, ValueError) as error:
        print(f"check-schemathesis: {error}", file=sys.stderr)
        return 1

    forwarder = Forwarder(daemon.socket_path)
    threading.Thread(target=forwarder.serve_forever, kwargs={"poll_interval": 0.2}, daemon=True).start()

    report_path = os.path.join(parent, "report.json")
    configuration = os.path.join(parent, "schemathesis.toml")
    with open(configuration, "w") as file:
        file.write(CONFIGURATION)
    command = [
        SCHEMATHESIS, "--config-file", configuration, "run", DOCUMENT,
        "--url", f"http://127.0.0.1:{forwarder.port}",
        "--checks", "all",
        "--continue-on-failure",
        "--seed", str(arguments.seed),
        "--max-examples", str(arguments.max_examples),
        "--workers", arguments.workers,
        "--generation-database", "none",
        "--request-timeout", "10",
        "--no-color",
        "--report", "json", "--report-json-path", report_path,
    ]
    saved = os.environ.get("CHECK_SCHEMATHESIS_OUTPUT")
    if saved:
        command[-2:-2] = ["--report", "ndjson", "--report-ndjson-path", report_path + ".ndjson"]
    shown = [os.path.relpath(part, ROOT) if part in (SCHEMATHESIS, DOCUMENT) else part for part in command]
    print("check-schemathesis: " + " ".join(shown).replace(report_path, "REPORT.json").replace(configuration, "CONFIG.toml"), flush=True)
    started = time.monotonic()
    try:
        run = subprocess.run(command, cwd=parent, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=RUN_TIMEOUT,
                             env=dict(os.environ, SCHEMATHESIS_HOOKS=os.path.abspath(__file__)))
    except subprocess.TimeoutExpired as timeout:
        output = timeout.stdout or b""
        output = output.decode("utf-8", "replace") if isinstance(output, bytes) else output
        print(f"check-schemathesis: FAIL schemathesis did not finish within {RUN_TIMEOUT} s:\n{output[-4000:]}", file=sys.stderr)
        return 1
    seconds = time.monotonic() - started
    if saved:
        with open(saved, "w") as file:
            file.write(run.stdout + run.stderr)
        for source, suffix in ((report_path, ".report.json"), (report_path + ".ndjson", ".events.ndjson")):
            if os.path.exists(source):
                shutil.copy(source, saved + suffix)

    problems = []
    report = {}
    try:
        with open(report_path) as file:
            report = json.load(file)
    except (OSError, ValueError) as error:
        problems.append(f"no JSON report from schemathesis ({error}); it exited {run.returncode}:\n{(run.stdout + run.stderr)[-4000:]}")
    for failure in report.get("failures", []):
        problems.append(f"{failure.get('code')} {failure.get('title')} ({failure.get('count')} cases) in {', '.join(failure.get('operations', []))}")
    for error in report.get("errors", []):
        problems.append(f"schemathesis error: {error.get('title')} ({error.get('count')})")
    for kind, items in (report.get("warnings") or {}).items():
        if items:
            text = f"warning {kind}: {', '.join(map(str, items))}"
            if kind in CONTRACT_WARNINGS:
                problems.append(text)
            else:
                print(f"check-schemathesis: {text}", file=sys.stderr)
    if report and not report.get("complete", False):
        problems.append(f"the run did not complete (stop reason {report.get('stop_reason')})")
    if daemon.process is None or daemon.process.poll() is not None:
        problems.append(f"the daemon exited during the run: {daemon.log()}")
    else:
        try:
            ran = leftover_jobs(daemon.socket_path)
            if ran:
                problems.append(f"jobs ran although the daemon has no network: {[job.get('title') for job in ran][:10]}")
        except (OSError, ValueError, KeyError) as error:
            problems.append(f"the daemon does not answer after the run: {error}")
    if not problems and run.returncode != 0:
        problems.append(f"schemathesis exited {run.returncode}:\n{(run.stdout + run.stderr)[-4000:]}")

    if problems:
        for title, text in sections(run.stdout, "FAILURES", "ERRORS"):
            print(f"check-schemathesis: schemathesis's {title.lower()}:\n{text}\n", file=sys.stderr)
        for problem in problems:
            print(f"check-schemathesis: FAIL {problem}", file=sys.stderr)
    operations = (report.get("operations") or {}).get("tested", 0)
    cases = (report.get("test_cases") or {}).get("generated", 0)
    print(f"check-schemathesis: {operations} operations, {cases} cases, {len(problems)} failures, {seconds:.0f} s "
          f"(seed {arguments.seed}, {arguments.max_examples} examples per operation)")
    return 1 if problems else 0

if __name__ == "__main__":
    sys.exit(main())
