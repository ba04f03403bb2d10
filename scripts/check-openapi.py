#!/usr/bin/env python3
"""Checks the daemon's control API against its contract, openapi/reach-daemon.yaml; exits 1
listing every mismatch.

1. The document is validated as OpenAPI (openapi-spec-validator).
2. The built daemon (.build/debug/reach-daemon, or $REACH_DAEMON) is started on a socket and
   state directory in a temporary directory, and every documented operation is exercised over
   the Unix socket: jobs added (a command, `true`, and a download from a closed loopback port
   held back by `notBefore`), listed, filtered, read, paused, resumed and cancelled; data
   budgets created, replaced, listed, read, reset, snoozed and removed, and one defined in the
   configuration file (`--config`) that the API may not replace or remove; the path, the metrics
   and the event stream (its first two lines); and the errors: a malformed body, an invalid job,
   a bad filter, a bad id, an unknown id, an unknown endpoint, a wrong method, an action on a
   finished job, a body over the limit, and for budgets a bad name, an unknown field, a warning
   above the limit, a reserve not below it, a bad cycle, a bad selector and an unknown budget.
3. Each answer's status must be one the document lists for the operation (an unknown endpoint
   and a wrong method are checked against components/responses NotFound and
   MethodNotAllowed), its Content-Type one the response declares, its declared headers present,
   and its JSON body (each line, for the event stream) valid against the declared schema
   (JSON Schema 2020-12 with the document's $refs; date-time, int32 and int64 formats checked).

Runs under the venv of scripts/testservers/setup.sh (.build/testservers-venv), which has the
validators; re-executes itself with that interpreter when started with another one. Only
Unix-socket traffic (the download's URL points at a closed loopback port and is never fetched).
"""
import os, sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
VENV = os.path.join(ROOT, ".build", "testservers-venv")

# The venv's pinned versions when it is there, whatever python3 is first on PATH.
_python = os.path.join(VENV, "bin", "python")
if os.path.abspath(sys.prefix) != os.path.abspath(VENV) and os.access(_python, os.X_OK):
    os.execv(_python, [_python, os.path.abspath(__file__)] + sys.argv[1:])
try:
    import yaml, jsonschema, referencing
    from openapi_spec_validator import OpenAPIV31SpecValidator
except ImportError:
    print("check-openapi: openapi-spec-validator, jsonschema and PyYAML are missing: run scripts/testservers/setup.sh", file=sys.stderr)
    sys.exit(1)

import atexit, datetime, http.client, json, re, shutil, signal, socket, subprocess, tempfile, time
from referencing import Registry
from referencing.jsonschema import DRAFT202012
from daemon_process import DaemonProcess

DOCUMENT = os.path.join(ROOT, "openapi", "reach-daemon.yaml")
DAEMON = os.environ.get("REACH_DAEMON") or os.path.join(ROOT, ".build", "debug", "reach-daemon")
DOC_URI = "urn:reach-daemon-openapi"
TIMEOUT = 15


class UnixHTTPConnection(http.client.HTTPConnection):
    """HTTP/1.1 over a Unix stream socket."""

    def __init__(self, path):
        super().__init__("localhost", timeout=TIMEOUT)
        self.socket_path = path

    def connect(self):
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(TIMEOUT)
        sock.connect(self.socket_path)
        self.sock = sock


class Checker:
    def __init__(self, document, socket_path):
        self.doc = document
        self.socket_path = socket_path
        self.mismatches = []
        self.requests = 0
        self.exercised = set()  # (method, path template) answered with a documented status
        self.operations = {
            (method.upper(), template)
            for template, item in document["paths"].items()
            for method in item
            if method in ("get", "put", "post", "delete", "patch", "head", "options", "trace")
        }
        self.registry = Registry().with_resource(DOC_URI, DRAFT202012.create_resource(document))
        formats = jsonschema.FormatChecker(formats=())
        formats.checks("date-time", raises=ValueError)(check_date_time)
        formats.checks("int32")(lambda value: not isinstance(value, int) or -(2**31) <= value < 2**31)
        formats.checks("int64")(lambda value: not isinstance(value, int) or -(2**63) <= value < 2**63)
        self.formats = formats

    def fail(self, where, text):
        self.mismatches.append(f"{where}: {text}")

    # The wire.

    def request(self, method, path, body=None, headers=None):
        """Sends one request on a new connection; returns (status, headers, body bytes)."""
        self.requests += 1
        connection = UnixHTTPConnection(self.socket_path)
        try:
            data = None if body is None else body if isinstance(body, bytes) else json.dumps(body).encode()
            all_headers = {"Content-Type": "application/json"} if data is not None else {}
            all_headers.update(headers or {})
            connection.request(method, path, body=data, headers=all_headers)
            response = connection.getresponse()
            return response.status, response.headers, response.read()
        finally:
            connection.close()

    # The contract.

    def resolve(self, node):
        """Follows a local `$ref` (responses, parameters) in the document."""
        while isinstance(node, dict) and "$ref" in node:
            node = self.pointer(node["$ref"])
        return node

    def pointer(self, ref):
        assert ref.startswith("#/"), ref
        node = self.doc
        for part in ref[2:].split("/"):
            node = node[part.replace("~1", "/").replace("~0", "~")]
        return node

    def validate(self, where, value, schema_pointer):
        schema = {"$ref": f"{DOC_URI}#{schema_pointer}"}
        validator = jsonschema.Draft202012Validator(schema, registry=self.registry, format_checker=self.formats)
        errors = [leaf for error in validator.iter_errors(value) for leaf in leaves(error)]
        for error in sorted(errors, key=lambda e: [str(p) for p in e.absolute_path]):
            location = "$" + "".join(f"[{p!r}]" if isinstance(p, int) else f".{p}" for p in error.absolute_path)
            self.fail(where, f"body {location}: {error.message[:300]}")

    def response_for(self, where, method, template, status):
        """The documented response and its JSON pointer, or None (a mismatch is recorded)."""
        if template.startswith("#/"):
            return self.resolve(self.pointer(template)), template[1:]
        operation = self.doc["paths"].get(template, {}).get(method.lower())
        if operation is None:
            self.fail(where, f"{method} {template} is not a documented operation")
            return None
        responses = operation.get("responses", {})
        if str(status) not in responses:
            self.fail(where, f"status {status} is not documented (documented: {', '.join(sorted(responses))})")
            return None
        self.exercised.add((method.upper(), template))
        base = "/paths/" + escape(template) + "/" + method.lower() + "/responses/" + str(status)
        response = responses[str(status)]
        if "$ref" in response:
            base = response["$ref"][1:]
            response = self.resolve(response)
        return response, base

    def check(self, label, method, template, path, body=None, headers=None, expect=None):
        """Sends the request and checks the answer against `template`'s operation (or a
        components/responses pointer); returns (status, parsed JSON body or None)."""
        where = f"{label} ({method} {path})"
        try:
            status, response_headers, raw = self.request(method, path, body, headers)
        except OSError as error:
            self.fail(where, f"request failed: {error}")
            return None, None
        if expect is not None and status != expect:
            self.fail(where, f"status {status}, expected {expect}: {raw[:300]!r}")
        found = self.response_for(where, method, template, status)
        if found is None:
            return status, None
        response, base = found
        return status, self.check_body(where, response, base, response_headers, raw)

    def check_body(self, where, response, base, response_headers, raw):
        for name, header in (response.get("headers") or {}).items():
            header = self.resolve(header)
            if header.get("required") and response_headers.get(name) is None:
                self.fail(where, f"declared header {name} is missing")
        content = response.get("content") or {}
        media = (response_headers.get("Content-Type") or "").split(";")[0].strip().lower()
        if not content:
            if raw:
                self.fail(where, f"a body ({len(raw)} bytes) where none is declared")
            return None
        if media not in content:
            self.fail(where, f"Content-Type {media or '(none)'} is not declared ({', '.join(content)})")
            return None
        schema_pointer = base + "/content/" + escape(media) + "/schema"
        if media == "application/json":
            try:
                value = json.loads(raw)
            except ValueError as error:
                self.fail(where, f"body is not JSON: {error}")
                return None
            self.validate(where, value, schema_pointer)
            return value
        if media.startswith("text/"):
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError:
                self.fail(where, "body is not UTF-8")
                return None
            self.validate(where, text, schema_pointer)
            return text
        return raw

    def events(self, label, first_line_then, target="/v1/events", count=2):
        """Opens `target` (an event stream), reads a line, calls `first_line_then()` (which
        causes an event), reads up to `count` lines in all, and closes; checks the head and each
        line."""
        where = f"{label} (GET {target})"
        self.requests += 1
        connection = UnixHTTPConnection(self.socket_path)
        lines = []
        try:
            connection.request("GET", target)
            response = connection.getresponse()
            found = self.response_for(where, "GET", target, response.status)
            if response.status != 200:
                self.fail(where, f"status {response.status}, expected 200: {response.read(300)!r}")
                return lines
            if found is None:
                return lines
            documented, base = found
            media = (response.headers.get("Content-Type") or "").split(";")[0].strip().lower()
            if media not in (documented.get("content") or {}):
                self.fail(where, f"Content-Type {media or '(none)'} is not declared")
                return lines
            schema_pointer = base + "/content/" + escape(media) + "/schema"
            for number in range(1, count + 1):
                if number == 2:
                    first_line_then()
                line = response.readline()
                if not line.endswith(b"\n"):
                    self.fail(where, f"line {number} does not end in a newline: {line[:200]!r}")
                    return lines
                try:
                    value = json.loads(line)
                except ValueError as error:
                    self.fail(where, f"line {number} is not JSON: {error}")
                    return lines
                self.validate(f"{where} line {number}", value, schema_pointer)
                lines.append(value)
        except OSError as error:
            self.fail(where, f"stream failed: {error}")
        finally:
            connection.close()
        return lines


def leaves(error):
    """The errors that say why: for a oneOf/anyOf (an event line), those of the branch whose
    `const` (its discriminator) matched, or else of the branch that came closest."""
    if not error.context:
        return [error]
    branches = {}
    for sub in error.context:
        branches.setdefault(sub.relative_schema_path[0], []).append(sub)
    matching = [subs for subs in branches.values() if not any(sub.validator == "const" for sub in subs)]
    chosen = matching[0] if len(matching) == 1 else [jsonschema.exceptions.best_match(error.context)]
    return [leaf for sub in chosen for leaf in leaves(sub)]


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


def escape(part):
    """A JSON pointer segment."""
    return part.replace("~", "~0").replace("/", "~1")


def check_date_time(value):
    if not isinstance(value, str):
        return True
    if not re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)", value):
        raise ValueError(f"not an RFC 3339 date-time: {value!r}")
    datetime.datetime.fromisoformat(value.replace("Z", "+00:00"))
    return True


def closed_loopback_port():
    """A loopback TCP port nothing listens on (bound, then released)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


# The budget the configuration file defines: the API may reset and snooze it, not replace or remove it.
CONFIG_BUDGET = "from-config"
CONFIGURATION = f"""# check-openapi.py's configuration: one data budget (an interface that does not exist).
budget {CONFIG_BUDGET} = iface:nothing* limit=1GB warning=none cycle=none
"""


class Daemon(DaemonProcess):
    """The daemon under test, on loopback overridden as wired, with a configuration file that
    defines a budget, stopped on every way out."""

    def __init__(self, directory):
        super().__init__(directory, os.path.join(directory, "daemon.log"))
        self.configuration = os.path.join(directory, "reach.conf")
        with open(self.configuration, "w") as file:
            file.write(CONFIGURATION)

    def command(self):
        return [DAEMON, "daemon", "--state-dir", os.path.join(self.directory, "state"), "--socket", self.socket_path,
                "--override", "lo=wired", "--config", self.configuration]


def wait_for_state(checker, job_id, states, seconds=20):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        status, headers, raw = checker.request("GET", f"/v1/jobs/{job_id}")
        checker.requests -= 1  # polling, not a check
        if status == 200 and json.loads(raw)["job"]["state"] in states:
            return True
        time.sleep(0.1)
    return False


def exercise(checker, directory):
    fail = checker.fail
    check = checker.check
    job_path = "/v1/jobs/{id}"

    check("path", "GET", "/v1/path", "/v1/path", expect=200)
    checker.events("path events", lambda: None, target="/v1/path/events", count=1)
    # Address literals only: a name would be resolved, and this daemon runs in the host's namespace.
    check("route", "GET", "/v1/route", "/v1/route?host=127.0.0.1", expect=200)
    check("route without host", "GET", "/v1/route", "/v1/route", expect=400)
    check("route with a space", "GET", "/v1/route", "/v1/route?host=a%20b", expect=400)
    status, metrics = check("metrics", "GET", "/metrics", "/metrics", expect=200)
    if status == 200 and isinstance(metrics, str) and "# TYPE reach_" not in metrics:
        fail("metrics (GET /metrics)", "no reach_ metric family in the text")

    # The event stream: the path line on open, then the command job's line once it is added.
    created = {}

    def add_command():
        body = {"workingDirectory": directory, "job": {"kind": "command", "command": {"arguments": ["true"]}, "constraints": {}}}
        created["command"] = check("add command", "POST", "/v1/jobs", "/v1/jobs", body=body, expect=201)[1]

    lines = checker.events("events", add_command)
    if len(lines) == 2:
        if lines[0].get("type") != "path":
            fail("events (GET /v1/events)", f"line 1 is a {lines[0].get('type')!r} event, expected the path")
        if lines[1].get("type") != "job":
            fail("events (GET /v1/events)", f"line 2 is a {lines[1].get('type')!r} event, expected a job")
    if "command" not in created:
        add_command()
    command = created["command"]

    downloads = os.path.join(directory, "downloads")
    os.makedirs(downloads, exist_ok=True)
    body = {
        "workingDirectory": directory,
        "job": {
            "kind": "download",
            "download": {"url": f"http://127.0.0.1:{closed_loopback_port()}/file.bin", "destination": "downloads/"},
            "constraints": {"when": "any"},
            "notBefore": "2099-01-01T00:00:00Z",
            "maxAttempts": 3,
        },
    }
    download = check("add download", "POST", "/v1/jobs", "/v1/jobs", body=body, expect=201)[1]
    if not isinstance(command, dict) or not isinstance(download, dict) or "id" not in command or "id" not in download:
        fail("add", "no job was added: cannot check the job operations")
        return
    if download.get("spec", {}).get("download", {}).get("destination") != os.path.join(downloads, "file.bin"):
        fail("add download (POST /v1/jobs)", f"destination not resolved: {download.get('spec')}")
    command_id, download_id = command["id"], download["id"]

    if not wait_for_state(checker, command_id, {"succeeded", "failed"}):
        fail("command job", f"job {command_id} (`true`) did not finish within 20 s")
    if not wait_for_state(checker, download_id, {"paused"}):
        fail("download job", f"job {download_id} (notBefore 2099) is not paused")

    status, listing = check("list", "GET", "/v1/jobs", "/v1/jobs", expect=200)
    if isinstance(listing, dict):
        ids = [job.get("id") for job in listing.get("jobs", [])]
        if command_id not in ids or download_id not in ids:
            fail("list (GET /v1/jobs)", f"jobs {command_id} and {download_id} not both listed: {ids}")
    status, listing = check("list paused", "GET", "/v1/jobs", "/v1/jobs?state=paused,pending", expect=200)
    if isinstance(listing, dict):
        states = {job.get("state") for job in listing.get("jobs", [])}
        if not states <= {"paused", "pending"} or download_id not in [job.get("id") for job in listing.get("jobs", [])]:
            fail("list paused (GET /v1/jobs?state=paused,pending)", f"filter not applied: states {sorted(map(str, states))}")

    # What generated clients send for a list: the name repeated. Both values must count.
    status, listing = check("list repeated", "GET", "/v1/jobs", "/v1/jobs?state=paused&state=succeeded", expect=200)
    if isinstance(listing, dict):
        listed = {job.get("id"): job.get("state") for job in listing.get("jobs", [])}
        if download_id not in listed or command_id not in listed or not set(listed.values()) <= {"paused", "succeeded"}:
            fail("list repeated (GET /v1/jobs?state=paused&state=succeeded)", f"expected jobs {command_id} and {download_id}: {listed}")
    check("bad repeated filter", "GET", "/v1/jobs", "/v1/jobs?state=paused&state=", expect=400)

    status, listing = check("list summaries", "GET", "/v1/jobs", "/v1/jobs?view=summary", expect=200)
    if isinstance(listing, dict):
        jobs = listing.get("jobs", [])
        if [job.get("id") for job in jobs] != sorted(job.get("id") for job in jobs) or download_id not in [job.get("id") for job in jobs] \
                or any("spec" in job or "title" not in job for job in jobs):
            fail("list summaries (GET /v1/jobs?view=summary)", f"expected summaries (a title, no spec), oldest first: {jobs}")

    status, detail = check("get command", "GET", job_path, f"/v1/jobs/{command_id}", expect=200)
    if isinstance(detail, dict):
        job = detail.get("job", {})
        if job.get("state") != "succeeded" or job.get("result", {}).get("exitStatus") != 0 or "logPath" not in detail:
            fail("get command (GET /v1/jobs/{id})", f"expected a succeeded job with exitStatus 0 and a logPath: {detail}")
    status, detail = check("get download", "GET", job_path, f"/v1/jobs/{download_id}", expect=200)
    if isinstance(detail, dict) and detail.get("job", {}).get("reason", {}).get("code") != "notBefore":
        fail("get download (GET /v1/jobs/{id})", f"expected reason notBefore: {detail.get('job', {}).get('reason')}")

    status, job = check("pause", "POST", job_path + "/pause", f"/v1/jobs/{download_id}/pause", expect=200)
    if isinstance(job, dict) and (job.get("state"), job.get("reason", {}).get("code")) != ("paused", "pausedByUser"):
        fail("pause (POST /v1/jobs/{id}/pause)", f"expected paused/pausedByUser: {job.get('state')} {job.get('reason')}")
    status, job = check("resume", "POST", job_path + "/resume", f"/v1/jobs/{download_id}/resume", expect=200)
    if isinstance(job, dict) and job.get("reason", {}).get("code") == "pausedByUser":
        fail("resume (POST /v1/jobs/{id}/resume)", "still paused by the user")
    status, job = check("cancel", "POST", job_path + "/cancel", f"/v1/jobs/{download_id}/cancel", expect=200)
    if isinstance(job, dict) and (job.get("state") != "cancelled" or "finishedAt" not in job):
        fail("cancel (POST /v1/jobs/{id}/cancel)", f"expected cancelled with finishedAt: {job.get('state')}")

    # Errors.
    check("malformed body", "POST", "/v1/jobs", "/v1/jobs", body=b'{"job": ', expect=400)
    invalid = {"workingDirectory": directory, "job": {"kind": "command", "command": {"arguments": ["true"]}, "constraints": {"when": "never"}}}
    check("invalid job", "POST", "/v1/jobs", "/v1/jobs", body=invalid, expect=400)
    # A misspelt field must not be dropped (and the job run without its check): 400 naming it.
    misspelt = {"workingDirectory": directory, "job": {"kind": "download", "download": {"url": "http://127.0.0.1:9/x", "sha265": "0" * 64}}}
    status, answer = check("unknown field", "POST", "/v1/jobs", "/v1/jobs", body=misspelt, expect=400)
    if isinstance(answer, dict) and "job.download.sha265" not in json.dumps(answer):
        fail("unknown field (POST /v1/jobs)", f"the error does not name job.download.sha265: {answer}")
    check("bad filter", "GET", "/v1/jobs", "/v1/jobs?state=queued", expect=400)
    check("bad view", "GET", "/v1/jobs", "/v1/jobs?view=tiny", expect=400)
    check("bad id", "GET", job_path, "/v1/jobs/abc", expect=400)
    check("unknown id", "GET", job_path, "/v1/jobs/987654321", expect=404)
    check("unknown id action", "POST", job_path + "/pause", "/v1/jobs/987654321/pause", expect=404)
    check("unknown endpoint", "GET", "#/components/responses/NotFound", "/v1/nothing", expect=404)
    check("unknown action", "GET", "#/components/responses/NotFound", f"/v1/jobs/{command_id}/frob", expect=404)
    check("wrong method", "DELETE", "#/components/responses/MethodNotAllowed", "/v1/jobs", expect=405)
    check("wrong method on an action", "GET", "#/components/responses/MethodNotAllowed", f"/v1/jobs/{command_id}/cancel", expect=405)
    check("resume finished", "POST", job_path + "/resume", f"/v1/jobs/{command_id}/resume", expect=409)
    check("cancel cancelled", "POST", job_path + "/cancel", f"/v1/jobs/{download_id}/cancel", expect=409)
    # Over the body limit: sent with Expect: 100-continue and no body, as curl would.
    check("body too large", "POST", "/v1/jobs", "/v1/jobs",
          headers={"Content-Type": "application/json", "Content-Length": str(2 << 20), "Expect": "100-continue"}, expect=413)

    exercise_budgets(checker)


def exercise_budgets(checker):
    """The data budgets: one of the configuration file, two set over the API (on loopback, and on
    cellular, which this host's path does not use), each operation, and the errors."""
    fail = checker.fail
    check = checker.check
    one = "/v1/budgets/{name}"

    status, listing = check("list budgets", "GET", "/v1/budgets", "/v1/budgets", expect=200)
    if isinstance(listing, list):
        configured = [budget for budget in listing if budget.get("name") == CONFIG_BUDGET]
        if len(configured) != 1 or configured[0].get("source") != "config" or configured[0].get("warningBytes") is not None \
                or configured[0].get("cycleEnd") is not None:
            fail("list budgets (GET /v1/budgets)", f"expected {CONFIG_BUDGET!r} from the configuration file "
                 f"(source config, no warning, no cycle): {listing}")

    # Created (201): the defaults are a warning at 80 % of the limit, no reserve; `daily` has an end.
    status, budget = check("create budget", "PUT", one, "/v1/budgets/lo-test", body={"for": "iface:lo", "limitBytes": 1000000, "cycle": "daily"},
                           expect=201)
    if isinstance(budget, dict):
        expected = {"name": "lo-test", "for": "iface:lo", "limitBytes": 1000000, "warningBytes": 800000, "reserveBytes": 0, "cycle": "daily",
                    "source": "api"}
        wrong = {key: budget.get(key) for key, value in expected.items() if budget.get(key) != value}
        if wrong or budget.get("cycleEnd") is None:
            fail("create budget (PUT /v1/budgets/{name})", f"expected {expected} and a cycleEnd; differs: {wrong}: {budget}")
    # Replaced (200): no warning, no cycle (so no end), a reserve.
    status, budget = check("replace budget", "PUT", one, "/v1/budgets/lo-test",
                           body={"for": "iface:lo", "limitBytes": 2000000, "noWarning": True, "cycle": "none", "reserveBytes": 1000}, expect=200)
    if isinstance(budget, dict) and (budget.get("limitBytes"), budget.get("warningBytes"), budget.get("cycleEnd"), budget.get("reserveBytes")) \
            != (2000000, None, None, 1000):
        fail("replace budget (PUT /v1/budgets/{name})", f"expected limit 2000000, warning null, cycleEnd null, reserve 1000: {budget}")
    status, budget = check("create cellular budget", "PUT", one, "/v1/budgets/sim.card_1",
                           body={"for": "cellular", "limitBytes": 2000000000, "warningBytes": 1500000000, "cycle": "weekly:mon"}, expect=201)
    if isinstance(budget, dict) and (budget.get("cycle"), budget.get("warningBytes")) != ("weekly:mon", 1500000000):
        fail("create cellular budget (PUT /v1/budgets/{name})", f"expected cycle weekly:mon and warning 1500000000: {budget}")

    status, listing = check("list budgets again", "GET", "/v1/budgets", "/v1/budgets", expect=200)
    if isinstance(listing, list):
        names = [budget.get("name") for budget in listing]
        if names != sorted(names) or not {"lo-test", "sim.card_1", CONFIG_BUDGET} <= set(names):
            fail("list budgets again (GET /v1/budgets)", f"expected lo-test, sim.card_1 and {CONFIG_BUDGET}, sorted by name: {names}")
    status, budget = check("get budget", "GET", one, "/v1/budgets/sim.card_1", expect=200)
    if isinstance(budget, dict) and budget.get("name") != "sim.card_1":
        fail("get budget (GET /v1/budgets/{name})", f"another budget answered: {budget}")

    status, budget = check("snooze budget", "POST", one + "/snooze", "/v1/budgets/sim.card_1/snooze", expect=200)
    if isinstance(budget, dict) and budget.get("state") != "snoozed":
        fail("snooze budget (POST /v1/budgets/{name}/snooze)", f"state {budget.get('state')!r}, expected snoozed")
    status, budget = check("reset budget", "POST", one + "/reset", "/v1/budgets/sim.card_1/reset", expect=200)
    if isinstance(budget, dict) and budget.get("state") != "ok":
        fail("reset budget (POST /v1/budgets/{name}/reset)", f"state {budget.get('state')!r}, expected ok (a reset ends the snooze)")
    # A budget of the configuration file: its usage may be reset and snoozed, not its definition changed.
    check("reset configured budget", "POST", one + "/reset", f"/v1/budgets/{CONFIG_BUDGET}/reset", expect=200)
    check("snooze configured budget", "POST", one + "/snooze", f"/v1/budgets/{CONFIG_BUDGET}/snooze", expect=200)
    check("replace configured budget", "PUT", one, f"/v1/budgets/{CONFIG_BUDGET}", body={"for": "wifi", "limitBytes": 1}, expect=409)
    check("remove configured budget", "DELETE", one, f"/v1/budgets/{CONFIG_BUDGET}", expect=409)

    status, budget = check("remove budget", "DELETE", one, "/v1/budgets/lo-test", expect=200)
    if isinstance(budget, dict) and budget.get("name") != "lo-test":
        fail("remove budget (DELETE /v1/budgets/{name})", f"expected the removed budget: {budget}")
    check("get removed budget", "GET", one, "/v1/budgets/lo-test", expect=404)

    status, metrics = check("budget metrics", "GET", "/metrics", "/metrics", expect=200)
    if isinstance(metrics, str):
        samples = metric_samples(metrics)
        for name, labels, value in (("reach_budget_used_bytes", {"budget": "sim.card_1"}, None),
                                    ("reach_budget_limit_bytes", {"budget": "sim.card_1"}, 2000000000),
                                    ("reach_budget_state", {"budget": "sim.card_1", "state": "ok"}, 1),
                                    ("reach_budget_state", {"budget": "sim.card_1", "state": "exhausted"}, 0)):
            found = [sample for sample in samples if sample[0] == name and sample[1] == labels]
            if len(found) != 1 or (value is not None and found[0][2] != value):
                fail("budget metrics (GET /metrics)", f"expected one {name}{labels}{'' if value is None else f' = {value}'}: {found}")
        if any(sample[1].get("budget") == "lo-test" for sample in samples):
            fail("budget metrics (GET /metrics)", "series of the removed budget lo-test remain")
    # A budget on every interface applies to the path (when there is one): its entry is checked too.
    check("create budget on every interface", "PUT", one, "/v1/budgets/everything",
          body={"for": "iface:*", "limitBytes": 9007199254740991, "noWarning": True}, expect=201)
    deadline = time.monotonic() + 5
    while True:
        status, path = check("path with budgets", "GET", "/v1/path", "/v1/path", expect=200)
        listed = isinstance(path, dict) and "everything" in [budget.get("name") for budget in path.get("budgets") or []]
        if listed or not isinstance(path, dict) or path.get("primary") is None or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    if isinstance(path, dict) and path.get("primary") is not None and not listed:
        fail("path with budgets (GET /v1/path)", f"the budget for iface:* is not among the path's budgets within 5 s: {path.get('budgets')}")
    check("remove budget on every interface", "DELETE", one, "/v1/budgets/everything", expect=200)

    # Errors.
    check("bad budget name", "GET", one, "/v1/budgets/.hidden", expect=400)
    check("long budget name", "GET", one, "/v1/budgets/" + "b" * 65, expect=400)
    check("bad budget name action", "POST", one + "/reset", "/v1/budgets/a%20b/reset", expect=400)
    check("unknown budget", "GET", one, "/v1/budgets/nothing-here", expect=404)
    check("reset unknown budget", "POST", one + "/reset", "/v1/budgets/nothing-here/reset", expect=404)
    check("snooze unknown budget", "POST", one + "/snooze", "/v1/budgets/nothing-here/snooze", expect=404)
    check("remove unknown budget", "DELETE", one, "/v1/budgets/nothing-here", expect=404)
    status, answer = check("budget unknown field", "PUT", one, "/v1/budgets/bad", body={"for": "wifi", "limitBytes": 1000, "limit": 5}, expect=400)
    if isinstance(answer, dict) and "limit" not in answer.get("error", {}).get("message", "").replace("limitBytes", ""):
        fail("budget unknown field (PUT /v1/budgets/{name})", f"the error does not name the field 'limit': {answer}")
    for label, body in (("budget warning above limit", {"for": "wifi", "limitBytes": 1000, "warningBytes": 1001}),
                        ("budget reserve at limit", {"for": "wifi", "limitBytes": 1000, "reserveBytes": 1000}),
                        ("budget warning and noWarning", {"for": "wifi", "limitBytes": 1000, "warningBytes": 10, "noWarning": True}),
                        ("budget null field", {"for": "wifi", "limitBytes": 1000, "cycle": None}),
                        ("budget bad cycle", {"for": "wifi", "limitBytes": 1000, "cycle": "monthly:32"}),
                        ("budget bad selector", {"for": "iface:wlan[0", "limitBytes": 1000}),
                        ("budget zero limit", {"for": "wifi", "limitBytes": 0}),
                        ("budget limit too large", {"for": "wifi", "limitBytes": 9007199254740992})):
        check(label, "PUT", one, "/v1/budgets/bad", body=body, expect=400)
    check("budget malformed body", "PUT", one, "/v1/budgets/bad", body=b'{"for": ', expect=400)
    check("bad budget not created", "GET", one, "/v1/budgets/bad", expect=404)
    check("wrong method on budgets", "POST", "#/components/responses/MethodNotAllowed", "/v1/budgets", expect=405)
    check("wrong method on a budget", "POST", "#/components/responses/MethodNotAllowed", "/v1/budgets/sim.card_1", expect=405)
    check("wrong method on a budget action", "GET", "#/components/responses/MethodNotAllowed", "/v1/budgets/sim.card_1/snooze", expect=405)
    check("unknown budget action", "POST", "#/components/responses/NotFound", "/v1/budgets/sim.card_1/frob", expect=404)
    check("budget body too large", "PUT", one, "/v1/budgets/big",
          headers={"Content-Type": "application/json", "Content-Length": str(2 << 20), "Expect": "100-continue"}, expect=413)


def main():
    with open(DOCUMENT) as file:
        document = yaml.safe_load(file)
    errors = list(OpenAPIV31SpecValidator(document).iter_errors())
    if errors:
        for error in errors:
            print(f"check-openapi: {DOCUMENT}: {error.message[:500]}", file=sys.stderr)
        print(f"check-openapi: the document is not valid OpenAPI 3.1 ({len(errors)} errors)", file=sys.stderr)
        return 1
    if not os.access(DAEMON, os.X_OK):
        print(f"check-openapi: no daemon at {DAEMON} (swift build --product reach-daemon)", file=sys.stderr)
        return 1

    directory = tempfile.mkdtemp(prefix="check-openapi.")
    if len(directory) > 80:  # a Unix socket path has at most 107 bytes
        os.rmdir(directory)
        directory = tempfile.mkdtemp(prefix="check-openapi.", dir="/tmp")
    daemon = Daemon(directory)

    def cleanup():
        daemon.stop()
        shutil.rmtree(directory, ignore_errors=True)

    atexit.register(cleanup)
    for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(signum, lambda signum, frame: sys.exit(128 + signum))
    try:
        daemon.start()
        checker = Checker(document, daemon.socket_path)
        exercise(checker, directory)
        if daemon.process is not None and daemon.process.poll() is not None:
            checker.fail("daemon", f"exited with {daemon.process.returncode} during the checks: {daemon.log()}")
    except RuntimeError as error:
        print(f"check-openapi: {error}", file=sys.stderr)
        return 1
    finally:
        cleanup()

    for missing in sorted(checker.operations - checker.exercised, key=lambda op: (op[1], op[0])):
        checker.fail(f"{missing[0]} {missing[1]}", "documented operation not exercised with a documented status")
    for mismatch in checker.mismatches:
        print(f"check-openapi: {mismatch}", file=sys.stderr)
    print(f"check-openapi: {len(checker.operations)} operations, {checker.requests} requests, {len(checker.mismatches)} mismatches")
    return 1 if checker.mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
