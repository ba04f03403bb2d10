#!/usr/bin/env python3
"""Writes Tests/Fixtures/queue-FROM.sqlite: a queue database as a given build of the daemon
leaves it, for the upgrade test (QueueUpgradeTests), which opens it with this build and expects
every job, its history and the budget kept.

    scripts/make-queue-fixture.py PATH/TO/reach-daemon NAME

NAME says which build wrote it (`grdb-9a77f32`: the last release whose store was GRDB). The
daemon runs in a network namespace of its own with one veth (the default route, overridden as
cellular), so nothing it does leaves it. Jobs, in the states a queue holds them in:
  1  a download waiting for a wired network, with a custom header
  2  a download with an Authorization header (its credentials are not stored: hasSecrets)
  3  a command not before 2099 (waiting for its time)
  4  a command that ran (`true`) and succeeded
  5  a command cancelled while waiting
  6  a command that failed (`false`, one attempt)
(Downloads 1 and 2 wait for a wired network; the namespace's only link is cellular.)
and the budget `cell` (cellular, 200 MB, monthly:1). The daemon is stopped with SIGTERM and its
log checkpointed into the file (still in WAL mode), which alone is kept. Standard library only; needs root."""
import os, shutil, signal, sqlite3, subprocess, sys, tempfile, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import uplink_namespace  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NAMESPACE = "reach-fixture"


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    binary, name = os.path.abspath(sys.argv[1]), sys.argv[2]
    work = tempfile.mkdtemp(prefix="reach-fixture-")
    daemon = None
    try:
        uplink_namespace.create(NAMESPACE, "d0", "10.9.0.2")
        state, sock = os.path.join(work, "state"), os.path.join(work, "reach.sock")
        log = open(os.path.join(work, "daemon.log"), "wb")
        daemon = subprocess.Popen(["ip", "netns", "exec", NAMESPACE, binary, "daemon", "--state-dir", state, "--socket", sock,
                                   "--path-socket", "none", "--override", "d0=cellular"], stdout=log, stderr=subprocess.STDOUT)
        for _ in range(600):
            if os.path.exists(sock):
                break
            time.sleep(0.05)

        def queue(*arguments):
            return subprocess.run([binary, "queue", "--socket", sock, *arguments], check=True, capture_output=True, text=True,
                                  cwd=work).stdout.strip()

        # In /tmp, which every machine the test runs on has: the job is taken up again there.
        files = "/tmp/reach-fixture"
        queue("add", "get", "--when", "wired", "-H", "X-Fixture: one", "-o", files + "-one.bin", "http://10.9.9.9:9/one.bin")
        queue("add", "get", "--when", "wired", "-H", "Authorization: Bearer fixture-secret", "-o", files + "-two.bin", "http://10.9.9.9:9/two.bin")
        queue("add", "run", "--not-before", "2099-01-01T00:00:00Z", "--", "echo", "later")
        ran = queue("add", "run", "--", "true")
        cancelled = queue("add", "run", "--not-before", "2099-01-01T00:00:00Z", "--", "echo", "never")
        failed = queue("add", "run", "--retries", "1", "--", "false")
        queue("cancel", cancelled)
        subprocess.run([binary, "budget", "set", "cell", "--socket", sock, "--for", "cellular", "--limit", "200MB", "--cycle", "monthly:1"],
                       check=True, capture_output=True)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            listing = queue("list")
            if all(f"{job}" in listing for job in (ran, failed)) and "running" not in listing and listing.count("succeeded") >= 1 and "failed" in listing:
                break
            time.sleep(0.2)
        else:
            sys.exit(f"make-queue-fixture: jobs {ran} and {failed} did not finish:\n{queue('list')}")
        daemon.send_signal(signal.SIGTERM)
        daemon.wait(timeout=30)
        database = os.path.join(state, "queue.sqlite")
        connection = sqlite3.connect(database)
        connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        counts = connection.execute("SELECT (SELECT count(*) FROM job), (SELECT count(*) FROM history), (SELECT count(*) FROM budget)").fetchone()
        connection.close()
        out = os.path.join(ROOT, "Tests/Fixtures", f"queue-{name}.sqlite")
        os.makedirs(os.path.dirname(out), exist_ok=True)
        shutil.copyfile(database, out)
        print(f"make-queue-fixture: {os.path.relpath(out, ROOT)}: {counts[0]} jobs, {counts[1]} history rows, {counts[2]} budget")
    finally:
        if daemon and daemon.poll() is None:
            daemon.kill()
            daemon.wait()
        uplink_namespace.delete(NAMESPACE)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
