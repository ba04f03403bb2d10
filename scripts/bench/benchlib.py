"""What the namespace benchmarks (bench_monitor.py, bench_validation.py) share: logging, cleanup
of the processes, namespaces and directories they create (also after a signal), stale
namespaces of dead runs, line-stamping readers, the environment record and the JSON file.

Imported by scripts run as `python3 scripts/bench/X.py`, whose directory is on `sys.path`.
Standard library only: the benchmarks also run themselves as helpers inside namespaces.
"""

from __future__ import annotations

import datetime
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from typing import Callable, Iterator

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", ".."))
RESULTS_DIR = os.path.join(HERE, "results")

# The signals that stop a run: they raise Interrupted, so cleanup runs before the exit.
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT)


def log(message: str) -> None:
    print(f"[bench {time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


# --------------------------------------------------------------------------------------------
# Cleanup: processes we started, namespaces we created
# --------------------------------------------------------------------------------------------

class Interrupted(BaseException):
    def __init__(self, signum: int):
        super().__init__(f"signal {signum}")
        self.signum = signum


def raise_on_stop_signals() -> None:
    """From now on each of STOP_SIGNALS raises Interrupted (in the main thread)."""
    def on_signal(signum, _frame):
        raise Interrupted(signum)

    for signum in STOP_SIGNALS:
        signal.signal(signum, on_signal)


class Janitor:
    """The processes, namespaces and directories a run created, to remove on every exit path.

    close_output: stopping a process also closes its stdout and stderr (not where reader threads
    keep draining them after the stop).
    """

    def __init__(self, close_output: bool = False) -> None:
        self.lock = threading.RLock()
        self.close_output = close_output
        self.procs: list[subprocess.Popen] = []
        self.namespaces: list[str] = []
        self.directories: list[str] = []

    def add_proc(self, proc: subprocess.Popen) -> None:
        with self.lock:
            self.procs.append(proc)

    def add_namespace(self, name: str) -> None:
        with self.lock:
            self.namespaces.append(name)

    def add_directory(self, path: str) -> None:
        with self.lock:
            self.directories.append(path)

    def stop_proc(self, proc: subprocess.Popen, timeout: float = 3.0) -> None:
        if proc.poll() is None:
            try:
                os.kill(proc.pid, signal.SIGCONT)  # a stopped process would not act on SIGTERM
                proc.terminate()
                proc.wait(timeout)
            except subprocess.TimeoutExpired:
                proc.kill()
                try:
                    proc.wait(timeout)
                except subprocess.TimeoutExpired:
                    pass
            except ProcessLookupError:
                pass
        for stream in (proc.stdin, proc.stdout, proc.stderr) if self.close_output else (proc.stdin,):
            try:
                if stream:
                    stream.close()
            except OSError:
                pass

    def release_proc(self, proc: subprocess.Popen) -> None:
        self.stop_proc(proc)
        with self.lock:
            if proc in self.procs:
                self.procs.remove(proc)

    def release_namespace(self, name: str) -> None:
        with self.lock:
            self.delete_namespace(name)
            if name in self.namespaces:
                self.namespaces.remove(name)

    @staticmethod
    def namespace_pids(name: str) -> list[int]:
        try:
            out = subprocess.run(["ip", "netns", "pids", name], capture_output=True, text=True, timeout=10).stdout
        except (OSError, subprocess.TimeoutExpired):
            return []
        return [int(word) for word in out.split() if word.isdigit()]

    @staticmethod
    def delete_namespace(name: str) -> bool:
        path = f"/run/netns/{name}"
        for _ in range(10):
            if not os.path.exists(path):
                return True
            subprocess.run(["ip", "netns", "del", name], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=20)
            if not os.path.exists(path):
                return True
            time.sleep(0.2)
        return not os.path.exists(path)

    def cleanup(self) -> None:
        with self.lock:
            for proc in reversed(self.procs):
                try:
                    self.stop_proc(proc)
                except Exception:  # noqa: BLE001 - cleanup must go on
                    pass
            self.procs.clear()
            for name in list(self.namespaces):
                # Anything still inside was started by our processes (a dnsmasq TCP child).
                for pid in self.namespace_pids(name):
                    try:
                        os.kill(pid, signal.SIGKILL)
                    except ProcessLookupError:
                        pass
                try:
                    if not self.delete_namespace(name):
                        print(f"bench: could not delete namespace {name}", file=sys.stderr)
                except Exception:  # noqa: BLE001
                    pass
            self.namespaces.clear()
            for directory in self.directories:
                shutil.rmtree(directory, ignore_errors=True)
            self.directories.clear()

    def cleanup_undisturbed(self) -> None:
        """cleanup() with STOP_SIGNALS ignored; afterwards they take their default action."""
        for signum in STOP_SIGNALS:
            signal.signal(signum, signal.SIG_IGN)
        self.cleanup()
        for signum in STOP_SIGNALS:
            signal.signal(signum, signal.SIG_DFL)


class Guarded:
    """`with Guarded(janitor) as run:` ends the block quietly on Interrupted (`run.signum` then
    names the signal) and in any case runs janitor.cleanup_undisturbed() after it."""

    def __init__(self, janitor: Janitor) -> None:
        self.janitor = janitor
        self.signum: int | None = None

    def __enter__(self) -> "Guarded":
        return self

    def __exit__(self, kind, error, traceback) -> bool:
        try:
            if isinstance(error, Interrupted):
                self.signum = error.signum
                log(f"interrupted by signal {self.signum}; cleaning up")
                return True
            return False
        finally:
            self.janitor.cleanup_undisturbed()


def remove_stale_namespaces(pattern: str) -> list[str]:
    """Deletes the namespaces whose names match `pattern` (its group 1: the pid of the process
    that created them) when that process no longer exists; logs and returns their names."""
    removed = []
    try:
        names = os.listdir("/run/netns")
    except FileNotFoundError:
        return removed
    for name in names:
        match = re.fullmatch(pattern, name)
        if match and not os.path.exists(f"/proc/{match.group(1)}"):
            if Janitor.delete_namespace(name):
                removed.append(name)
    if removed:
        log(f"removed stale namespaces of dead runs: {removed}")
    return removed


def record_end(results: dict, started: datetime.datetime, prefix: str) -> list[str]:
    """After cleanup: the run's `seconds` since `started` and its `leftover_namespaces` (this
    process's namespaces, `<prefix><pid>-…`, that still exist) into `results`; returns those."""
    leftovers = [n for n in (os.listdir("/run/netns") if os.path.isdir("/run/netns") else [])
                 if n.startswith(f"{prefix}{os.getpid()}-")]
    results["leftover_namespaces"] = leftovers
    results["seconds"] = (datetime.datetime.now(datetime.timezone.utc) - started).total_seconds()
    return leftovers


# --------------------------------------------------------------------------------------------
# A process's CPU and memory
# --------------------------------------------------------------------------------------------

def clock_ms(pid: int) -> float:
    """The process's CPU clock (clock_getcpuclockid: every thread, dead ones included), in ms.

    The same quantity as utime+stime (the kernel derives both from sum_exec_runtime), in
    nanoseconds instead of clock ticks.
    """
    try:
        return time.clock_gettime_ns(((~pid) << 3) | 2) / 1e6  # MAKE_PROCESS_CPUCLOCK(pid, CPUCLOCK_SCHED)
    except OSError:  # the process is gone
        return float("nan")


def status_kib(pid: int, key: str) -> int | None:
    try:
        with open(f"/proc/{pid}/status") as file:
            for line in file:
                if line.startswith(key + ":"):
                    return int(line.split()[1])
    except FileNotFoundError:
        return None
    return None


# --------------------------------------------------------------------------------------------
# Child processes' output
# --------------------------------------------------------------------------------------------

def stamped_lines(stream, clock: Callable[[], float | int]) -> Iterator[tuple[float | int, list[bytes]]]:
    """Reads `stream`'s descriptor to its end; yields (clock() just after the read, the lines
    that read completed) for each read that completes a line, then (clock(), [the rest]) if the
    output ends without a newline."""
    fd = stream.fileno()
    partial = b""
    while True:
        try:
            chunk = os.read(fd, 1 << 20)
        except OSError:
            break
        stamp = clock()
        if not chunk:
            break
        if b"\n" not in chunk:
            partial += chunk
            continue
        *complete, partial = (partial + chunk).split(b"\n")
        yield stamp, complete
    if partial:
        yield clock(), [partial]


# --------------------------------------------------------------------------------------------
# Scenarios and results
# --------------------------------------------------------------------------------------------

def run_scenario(scenarios: dict, name: str, call: Callable[[], dict], errors: tuple) -> bool:
    """scenarios[name] = call(), or an `error` entry if it raised one of `errors`; with the
    `seconds` it took either way. Returns whether it succeeded."""
    began = time.monotonic()
    succeeded = True
    try:
        scenarios[name] = call()
    except errors as error:
        log(f"scenario {name} failed: {type(error).__name__}: {error}")
        scenarios.setdefault(name, {})["error"] = f"{type(error).__name__}: {error}"
        succeeded = False
    scenarios.setdefault(name, {})["seconds"] = time.monotonic() - began
    return succeeded


def git_state() -> dict:
    """`git_head` (HEAD's commit) and `git_dirty` (uncommitted changes under Sources); what git
    could not tell is left out."""
    state: dict = {}

    def output(argv: list[str]) -> str:
        return subprocess.run(argv, capture_output=True, text=True, timeout=30, check=True).stdout

    try:
        state["git_head"] = output(["git", "-C", REPO, "rev-parse", "HEAD"]).strip()
        state["git_dirty"] = bool(output(["git", "-C", REPO, "status", "--porcelain", "--", "Sources"]).strip())
    except Exception:  # noqa: BLE001
        pass
    return state


def loadavg() -> list[str]:
    try:
        with open("/proc/loadavg") as file:
            return file.read().split()[:3]
    except OSError:
        return []


def render_safely(render: Callable[[dict], tuple], results: dict) -> tuple:
    """render(results): (table, a list, the checks); if it fails, a line saying so, [] and a
    failed check: a partial run must still write its JSON."""
    try:
        return render(results)
    except Exception as error:  # noqa: BLE001
        return f"(could not render the table: {type(error).__name__}: {error})", [], [
            {"name": "report rendered", "passed": False}]


def write_results(results: dict, directory: str, kind: str, started: datetime.datetime) -> str:
    """Writes `results` to `directory`/`kind`-<started, UTC>.json; returns the path."""
    os.makedirs(directory, exist_ok=True)
    path = os.path.join(directory, f"{kind}-{started.strftime('%Y%m%dT%H%M%SZ')}.json")
    with open(path, "w") as file:
        json.dump(results, file, indent=2, sort_keys=True, default=str)
    return path
