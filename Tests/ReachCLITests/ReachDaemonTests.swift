import Foundation
import Glibc
import ReachabilityLinux
import ReachabilityTestKit
import Testing

@Suite("reach daemon", .enabled(if: TestNamespace.isSupported), .serialized)
struct ReachDaemonTests {
    /// The issue's scenario: a job queued for unmetered waits while the route to the server is
    /// the "cellular" veth, runs when the default route moves to "wifi", survives `kill -9`
    /// mid-transfer (resumed with a Range request, not fetched again), and `wait` reports it.
    @Test func aJobQueuedForUnmeteredWaitsOnCellularRunsOnWiFiAndSurvivesKill9() async throws {
        let namespaces = try await RoutedNamespaces()
        let files = try TemporaryDirectory()
        defer { files.remove() }
        let size = 2_000_000
        let sha = try randomFile(files.path + "/big.bin", bytes: size)
        let server = try await TestServer(
            root: files.path, log: files.path + "/requests.log", in: namespaces.server, address: RoutedNamespaces.serverAddress)
        defer { server.stream.stop() }
        try namespaces.client.ip("route", "add", "default", "via", "10.2.0.1", "dev", "wa", "metric", "100")
        let daemon = try DaemonUnderTest(in: namespaces.client, arguments: RoutedNamespaces.overrides)
        try await daemon.start()

        let destination = daemon.files.path + "/big.bin"
        let added = try daemon.queue(["add", "get", server.url("big.bin?slow=400000"), "-o", destination, "--sha256", sha, "--when", "unmetered", "--settle", "0"])
        #expect(added.status == 0, "\(added.stderr)")
        let id = added.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let waiting = try await daemon.waitForJob(id) { $0["state"] as? String == "paused" }
        #expect(reason(waiting) == "queuedForUnmetered")
        let listed = try daemon.queue(["list"])
        #expect(listed.stdout.contains("queued for an unmetered network"))
        #expect(listed.stdout.contains("get \(server.url("big.bin?slow=400000")) → \(destination)"))
        let listedJSON = try daemon.queue(["list", "--json"])
        let array = try #require(try JSONSerialization.jsonObject(with: Data(listedJSON.stdout.utf8)) as? [[String: Any]])
        #expect(array.count == 1 && "\(array[0]["id"] ?? "")" == id && array[0]["state"] as? String == "paused" && array[0]["spec"] != nil)
        #expect(try server.requests().isEmpty)

        try namespaces.client.ip("route", "add", "default", "via", "10.1.0.1", "dev", "va", "metric", "10")
        _ = try await daemon.waitForJob(id) { job in
            job["state"] as? String == "running" && ((job["progress"] as? [String: Any])?["completedBytes"] as? Int ?? 0) > 300_000
        }
        try await Task.sleep(for: .milliseconds(1200))  // past the daemon's 1 s progress checkpoint
        daemon.kill()
        try await daemon.start()
        let waited = try daemon.queue(["wait", id, "--timeout", "60"])
        #expect(waited.status == 0, "\(waited.stderr)")
        let final = try daemon.job(id)
        #expect(final["state"] as? String == "succeeded")
        #expect((final["result"] as? [String: Any])?["sha256"] as? String == sha)
        let ranges = try server.ranges()
        #expect(ranges.count == 2)
        #expect(ranges.first == .some(nil) && ranges.last??.hasPrefix("bytes=") == true, "the second request resumes with a Range: \(ranges)")
        #expect(daemon.stop() == 0)
    }

    /// Only the daemon's user and root are served: `nobody` gets 403 even when it can reach the
    /// socket (its directory and mode loosened for the test), and `reach queue` says so.
    @Test func anotherUserIsRefusedByPeerCredentials() async throws {
        let daemon = try DaemonUnderTest(in: nil, arguments: ["--override", "lo=wired"])
        try await daemon.start()
        // The directory lets every user reach path.sock (0666, the path only); the control socket is 0600.
        #expect(try shell("stat -c %a \(daemon.files.path)/run \(daemon.socket) \(daemon.files.path)/run/path.sock").stdout.split(separator: "\n")
            == ["755", "600", "666"])
        _ = try shell("chmod 755 \(daemon.files.path) \(daemon.files.path)/run && chmod 666 \(daemon.socket)")
        let curl = try shell("setpriv --reuid=65534 --regid=65534 --clear-groups curl -s -o /dev/null -w '%{http_code}' --unix-socket \(daemon.socket) http://localhost/v1/jobs")
        #expect(curl.stdout == "403")
        let asNobody = try shell("setpriv --reuid=65534 --regid=65534 --clear-groups \(reachBinary) queue --socket \(daemon.socket) list")
        #expect(asNobody.status == 1)
        #expect(asNobody.stderr.contains("uid 65534"))
        #expect(try daemon.queue(["list"]).status == 0)
        #expect(daemon.stop() == 0)
    }

    /// Two daemons on one state directory would run the same jobs twice: the second exits 1
    /// naming the first's pid, before it binds a socket or opens the queue, whether it was given
    /// another socket or the same one; the first goes on answering.
    @Test func aSecondDaemonOnTheSameStateDirectoryExits1NamingTheHolder() async throws {
        let daemon = try DaemonUnderTest(in: nil, arguments: ["--override", "lo=wired"])
        try await daemon.start()
        let pid = try #require(daemon.pid)
        for socket in [daemon.files.path + "/run/second.sock", daemon.socket] {
            let second = try shell(
                "timeout 20 \(reachBinary) daemon --state-dir \(daemon.stateDirectory) --socket \(socket) --override lo=wired")
            #expect(second.status == 1, "\(second.stderr)")
            #expect(second.stderr.contains("another reach daemon (pid \(pid)) is using the state directory \(daemon.stateDirectory)"), "\(second.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: daemon.files.path + "/run/second.sock"))
        #expect(try daemon.queue(["list"]).status == 0)
        #expect(daemon.stop() == 0)
        // Released with the process: the directory is free again.
        try await daemon.start()
        #expect(try daemon.queue(["list"]).status == 0)
        #expect(daemon.stop() == 0)
    }

    /// A listener that cannot be bound (the metrics port is taken) makes the daemon exit 1 at
    /// once, before it has taken up any job: a job that would run now does not.
    @Test func aListenerThatCannotBeBoundExits1BeforeAnyJobRuns() async throws {
        let held = try DaemonUnderTest(in: nil, arguments: ["--override", "*=cellular"])
        try await held.start()
        let marker = held.files.path + "/ran"
        let added = try held.queue(["add", "run", "--when", "wifi", "--", "sh", "-c", "echo ran > \(marker)"])
        #expect(added.status == 0, "\(added.stderr)")
        let id = added.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        _ = try await held.waitForJob(id) { reason($0) == "queuedForWifi" }
        #expect(held.stop() == 0)

        // A port that is taken: the test server's, on loopback.
        let server = try await TestServer(root: held.files.path, log: held.files.path + "/requests.log", in: nil)
        defer { server.stream.stop() }
        let port = server.port

        let started = ContinuousClock.now
        let failed = try shell(
            "timeout 20 \(reachBinary) daemon --state-dir \(held.stateDirectory) --socket \(held.socket) --override '*=wifi' --metrics-listen 127.0.0.1:\(port)")
        #expect(failed.status == 1, "\(failed.stderr)")
        #expect(failed.stderr.contains("127.0.0.1:\(port)") || failed.stderr.lowercased().contains("address already in use"), "\(failed.stderr)")
        #expect(ContinuousClock.now - started < .seconds(15))
        try await Task.sleep(for: .milliseconds(500))
        #expect(!FileManager.default.fileExists(atPath: marker), "the job ran although the daemon could not start")

        // With a free port the same job runs.
        let daemon = try DaemonUnderTest(in: nil, arguments: ["--override", "*=wifi"])
        let runner = try shell("mkdir -p \(daemon.files.path) && cp -a \(held.stateDirectory) \(daemon.stateDirectory)")
        #expect(runner.status == 0)
        try await daemon.start()
        _ = try await daemon.waitForJob(id) { $0["state"] as? String == "succeeded" }
        #expect(FileManager.default.fileExists(atPath: marker))
        #expect(daemon.stop() == 0)
    }

    /// A command job gets descriptors 0-2 only, whatever the daemon has open (its epoll
    /// instances, another client's event stream); after `kill -9` of the daemon the restarted
    /// one ends the group the crash left before running the job again, so it never runs twice
    /// at once.
    @Test func aCommandHasOnlyItsStandardDescriptorsAndACrashNeverLeavesASecondCopy() async throws {
        let daemon = try DaemonUnderTest(in: nil, arguments: ["--override", "*=wired"])
        try await daemon.start()
        let watcher = try ReachStream(["queue", "--socket", daemon.socket, "watch"], in: nil)
        defer { watcher.kill() }
        let pids = daemon.files.path + "/pids"
        // `ls` writes to the job's log; the shell lists its own descriptors before any redirection.
        let added = try daemon.queue(["add", "run", "--", "sh", "-c", "ls /proc/$$/fd; echo $$ >> \(pids); exec sleep 300"])
        #expect(added.status == 0, "\(added.stderr)")
        let id = added.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        _ = try await daemon.waitForJob(id) { $0["state"] as? String == "running" }
        let lines = { ((try? String(contentsOfFile: pids, encoding: .utf8)) ?? "").split(separator: "\n").compactMap { Int32($0) } }
        for _ in 0..<500 where lines().isEmpty { try await Task.sleep(for: .milliseconds(10)) }
        let first = try #require(lines().first)
        let listed = try String(contentsOfFile: daemon.stateDirectory + "/logs/job-\(id).log", encoding: .utf8)
        #expect(listed == "0\n1\n2\n", "the command inherited descriptors beyond 0-2: \(listed)")

        daemon.kill()
        _ = daemon.stream?.waitForExit()
        #expect(kill(first, 0) == 0, "the command died with the daemon: nothing left to test")
        try await daemon.start()
        _ = try await daemon.waitForJob(id) { $0["state"] as? String == "running" }
        for _ in 0..<500 where lines().count < 2 { try await Task.sleep(for: .milliseconds(10)) }
        #expect(lines().count == 2)
        // The first copy is gone (reaped by init once ended): only the new one runs.
        var gone = false
        for _ in 0..<500 where !gone {
            gone = kill(first, 0) != 0 || ((try? String(contentsOfFile: "/proc/\(first)/stat", encoding: .utf8))?.contains(") Z ") ?? true)
            if !gone { try await Task.sleep(for: .milliseconds(10)) }
        }
        #expect(gone, "the first copy (pid \(first)) still runs beside the second")
        let history = try daemon.queue(["show", id])
        #expect(history.stdout.contains("interrupted"), "\(history.stdout)")
        #expect(daemon.stop() == 0)
        let second = try #require(lines().last)
        #expect(kill(second, 0) != 0 || ((try? String(contentsOfFile: "/proc/\(second)/stat", encoding: .utf8))?.contains(") Z ") ?? true))
    }

    /// `kill -9` in the middle of a burst: 300 downloads released at once, the daemon killed
    /// while they run, started again. Every job ends `succeeded` with the right file, and no job
    /// has two `succeeded` rows (nothing lost, nothing run twice).
    @Test func kill9DuringABurstLosesNothingAndRunsNothingTwice() async throws {
        let files = try TemporaryDirectory()
        defer { files.remove() }
        let sha = try randomFile(files.path + "/f.bin", bytes: 200_000)
        try FileManager.default.createDirectory(atPath: files.path + "/out", withIntermediateDirectories: true)
        let server = try await TestServer(root: files.path, log: files.path + "/requests.log", in: nil)
        defer { server.stream.stop() }
        let daemon = try DaemonUnderTest(in: nil, arguments: ["--override", "lo=wired", "--per-host", "8", "--max-running", "16"])
        try await daemon.start()
        let count = 300
        let release = Date().addingTimeInterval(8).timeIntervalSince1970.rounded(.up)
        let formatter = ISO8601DateFormatter()
        let notBefore = formatter.string(from: Date(timeIntervalSince1970: release))
        // Added over the API with curl, in one shell: 300 `reach queue add` processes would take longer than the hold.
        let script = (0..<count).map { index in
            "curl -sf --unix-socket \(daemon.socket) -H 'Content-Type: application/json' -o /dev/null "
                + "-d '{\"workingDirectory\":\"/\",\"job\":{\"kind\":\"download\",\"notBefore\":\"\(notBefore)\",\"download\":{\"url\":\"\(server.url("f.bin?slow=4000000"))\",\"destination\":\"\(files.path)/out/\(index).bin\",\"sha256\":\"\(sha)\"}}}' http://localhost/v1/jobs"
        }.joined(separator: " && \n")
        try script.write(toFile: files.path + "/add.sh", atomically: false, encoding: .utf8)
        let added = try shell("bash \(files.path)/add.sh")
        #expect(added.status == 0, "\(added.stderr)")
        #expect(Date().timeIntervalSince1970 < release, "adding took longer than the hold")
        // Into the burst: some done, most not.
        let done = { (try? FileManager.default.contentsOfDirectory(atPath: files.path + "/out"))?.filter { $0.hasSuffix(".bin") }.count ?? 0 }
        while Date().timeIntervalSince1970 < release { try await Task.sleep(for: .milliseconds(20)) }
        for _ in 0..<1000 where done() < 20 { try await Task.sleep(for: .milliseconds(5)) }
        let before = done()
        daemon.kill()
        _ = daemon.stream?.waitForExit()
        #expect(before > 0 && before < count, "the kill did not land in the burst: \(before) of \(count) done")
        try await daemon.start()
        let waited = try daemon.queue(["wait", "--all", "--timeout", "120"])
        if waited.status != 0 {
            // Which jobs did not finish, and why: the failure says, not just the timeout.
            let unfinished = try daemon.queue(["list"]).stdout.split(separator: "\n").filter { !$0.contains("succeeded") }.prefix(20)
            Issue.record("wait --all: exit \(waited.status): \(waited.stderr)\n\(unfinished.joined(separator: "\n"))")
        }
        let listed = try daemon.queue(["list", "--json"])
        let jobs = try #require(try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]])
        #expect(jobs.count == count)
        #expect(jobs.allSatisfy { $0["state"] as? String == "succeeded" }, "\(jobs.filter { $0["state"] as? String != "succeeded" }.prefix(3))")
        for id in jobs.compactMap({ $0["id"] as? Int }).prefix(count) {
            let shown = try daemon.queue(["show", String(id), "--json"])
            let object = try JSONSerialization.jsonObject(with: Data(shown.stdout.utf8)) as? [String: Any]
            let history = object?["history"] as? [[String: Any]] ?? []
            #expect(history.filter { $0["state"] as? String == "succeeded" }.count == 1, "job \(id): \(history)")
        }
        let sums = try shell("cd \(files.path)/out && sha256sum *.bin | cut -d' ' -f1 | sort -u")
        #expect(sums.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == sha)
        #expect(daemon.stop() == 0)
    }

    /// A restarted daemon answers "not yet" (503 `starting`, `Retry-After`) until its queue is
    /// loaded, never an empty list or a 404 for a stored job: 10,000 stored jobs, asked for from
    /// the first connection the new daemon accepts (before: `{"jobs":[]}` and 404 for ~0.3 s).
    /// `reach queue show` started at the same moment waits and shows the job.
    @Test func aRestartedDaemonNeverAnswersFromAQueueItHasNotLoaded() async throws {
        let count = 10_000
        let daemon = try DaemonUnderTest(in: nil, arguments: ["--override", "lo=wired"])
        try await daemon.start()
        // Held until 2030: nothing runs, every job stays pending.
        let body = #"{"workingDirectory":"/","job":{"kind":"download","notBefore":"2030-01-01T00:00:00Z","download":"#
            + #"{"url":"http://127.0.0.1:9/f.bin","destination":"\#(daemon.files.path)/f.bin"}}}"#
        let added = try shell("curl -sf --unix-socket \(daemon.socket) -H 'Content-Type: application/json' -d '\(body)' http://localhost/v1/jobs")
        #expect(added.status == 0, "\(added.stderr)")
        #expect(daemon.stop() == 0)
        // 9,999 copies of the stored job, straight into the database the daemon left.
        let copied = try shell(
            """
            python3 -c "import sqlite3; db = sqlite3.connect('\(daemon.stateDirectory)/queue.sqlite'); \
            db.execute('WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(count - 1)) \
            INSERT INTO job (spec, hasSecrets, state, createdAt, updatedAt) SELECT spec, hasSecrets, state, createdAt, updatedAt FROM job, n WHERE job.id = 1'); \
            db.commit(); print(db.execute('SELECT count(*) FROM job').fetchone()[0])"
            """)
        #expect(copied.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == String(count), "\(copied.stderr)")
        let hammer = try SpawnedProcess(
            ["/usr/bin/python3", "-u", try #require(UploadTestServer.packageRoot) + "/scripts/testservers/restart_hammer.py", daemon.socket, String(count)],
            output: daemon.files.path + "/hammer.json")
        let show = try SpawnedProcess(
            ["/usr/bin/env", "bash", "-c", "until [ -S \(daemon.socket) ]; do sleep 0.001; done; exec \(reachBinary) queue --socket \(daemon.socket) show 1 --json"],
            output: daemon.files.path + "/show.json")
        try await daemon.start()
        for _ in 0..<3000 where hammer.isRunning || show.isRunning { try await Task.sleep(for: .milliseconds(10)) }
        let report = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: daemon.files.path + "/hammer.json"))) as? [String: Any])
        #expect(report["wrongCount"] as? Int == 0, "\(report)")
        let counts = report["counts"] as? [String: [String: Int]] ?? [:]
        #expect(counts["list"]?["200"] ?? 0 >= 5 && counts["job"]?["200"] ?? 0 >= 5, "\(report)")
        let shown = try Data(contentsOf: URL(fileURLWithPath: daemon.files.path + "/show.json"))
        let job = (try? JSONSerialization.jsonObject(with: shown) as? [String: Any])?["job"] as? [String: Any]
        #expect(job?["id"] as? Int == 1, "\(String(decoding: shown.prefix(400), as: UTF8.self))")
        #expect(daemon.stop() == 0)
    }

    /// A path that is another file for the daemon than for the client (systemd's
    /// `PrivateTmp=yes`; here a tmpfs mounted in the client's own mount namespace) is refused
    /// when the job is added, saying why, instead of failing later with "cannot run '/bin/sh'".
    @Test func aPathTheDaemonSeesDifferentlyIsRefusedWhenAdded() async throws {
        let daemon = try DaemonUnderTest(in: nil, arguments: ["--override", "lo=wired"])
        try await daemon.start()
        let work = daemon.files.path + "/work"
        try FileManager.default.createDirectory(atPath: work + "/same", withIntermediateDirectories: true)
        let queue = "\(reachBinary) queue --socket \(daemon.socket) add"
        // In the client's namespace `work` is another file system: `private` exists only there,
        // and `same` there is another directory than the daemon's.
        let script = """
            set -u
            mount -t tmpfs none \(work) && mkdir \(work)/private \(work)/same || exit 99
            cd \(work)/private && \(queue) run -- true; echo "status $?"
            cd \(work)/same && \(queue) run -- true; echo "status $?"
            \(queue) get -o \(work)/same/file http://127.0.0.1:9/x; echo "status $?"
            """
        try daemon.files.write("client.sh", script)
        let refused = try shell("unshare --mount --propagation private sh \(daemon.files.path)/client.sh")
        #expect(refused.stdout == "status 64\nstatus 64\nstatus 64\n", "\(refused.stdout) \(refused.stderr)")
        let messages = refused.stderr.split(separator: "\n")
        #expect(messages.count == 3, "\(refused.stderr)")
        #expect(messages.first?.contains("workingDirectory: '\(work)/private' does not exist for the daemon") == true)
        #expect(messages.dropFirst().first?.contains("workingDirectory: '\(work)/same' is another file for the daemon than for you") == true)
        #expect(messages.last?.contains("destination: '\(work)/same' is another file for the daemon") == true)
        #expect(refused.stderr.contains("PrivateTmp=yes"))
        // The same directory seen the same way is accepted; nothing refused was kept.
        let accepted = try shell("cd \(work)/same && \(queue) run -- true")
        #expect(accepted.status == 0, "\(accepted.stderr)")
        #expect(try daemon.queue(["list", "--json"]).stdout.components(separatedBy: "\"id\"").count == 2)
        #expect(daemon.stop() == 0)
    }

    /// Without a daemon: one line naming the socket, exit 69.
    /// `reach status --daemon` is the daemon's path (its overrides applied), word for word what
    /// `reach queue path` prints, found through `REACH_SOCKET` as every client finds it; with no
    /// daemon listening it exits 69 naming the socket.
    @Test func statusFromTheDaemonIsTheDaemonsPath() async throws {
        let namespaces = try await RoutedNamespaces()
        try namespaces.client.ip("route", "add", "default", "via", "10.2.0.1", "dev", "wa", "metric", "100")
        let daemon = try DaemonUnderTest(in: namespaces.client, arguments: RoutedNamespaces.overrides)
        try await daemon.start()
        let environment = ["REACH_SOCKET": daemon.socket]
        var status = try reach(["status", "--daemon"], in: namespaces.client, environment: environment)
        let deadline = ContinuousClock.now + .seconds(10)
        while !status.stdout.hasPrefix("cellular via wa") && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(100))
            status = try reach(["status", "--daemon"], in: namespaces.client, environment: environment)
        }
        #expect(status.status == 0, "\(status.stderr)")
        #expect(status.stdout.hasPrefix("cellular via wa (IPv4) expensive"), "\(status.stdout)")
        #expect(status.stdout == (try daemon.queue(["path"])).stdout)

        let json = try reach(["status", "--daemon", "--json"], in: namespaces.client, environment: environment)
        #expect(json.status == 0, "\(json.stderr)")
        let path = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(path["status"] as? String == "cellular")
        #expect(path["expensive"] as? Bool == true)
        #expect((path["primary"] as? [String: Any])?["name"] as? String == "wa")

        // --socket names it instead, over REACH_SOCKET; alone it is a usage error.
        let named = try reach(["status", "--daemon", "--socket", daemon.socket], in: namespaces.client, environment: ["REACH_SOCKET": "/nonexistent/reach.sock"])
        #expect(named.status == 0, "\(named.stderr)")
        #expect(named.stdout == status.stdout)
        let alone = try reach(["status", "--socket", daemon.socket], in: namespaces.client)
        #expect(alone.status == 64)
        #expect(alone.stderr.contains("--socket names the daemon's socket: it goes with --daemon"), "\(alone.stderr)")

        #expect(daemon.stop() == 0)
        let gone = try reach(["status", "--daemon"], in: namespaces.client, environment: environment)
        #expect(gone.status == 69)
        #expect(gone.stderr.contains(daemon.socket), "\(gone.stderr)")
    }

    /// Started with a soft limit of 512 descriptors and `--max-running 64` (which may need
    /// about 1,600), the daemon raises its soft limit as far as that need; under a hard limit of
    /// 900 it takes all 900. Its default settings leave the limit alone.
    @Test func theDaemonRaisesItsDescriptorLimitAsFarAsItsSettingsNeed() async throws {
        func softLimit(_ pid: Int32?) throws -> Int? {
            let limits = try String(contentsOfFile: "/proc/\(try #require(pid))/limits", encoding: .utf8)
            let line = limits.split(separator: "\n").first { $0.hasPrefix("Max open files") }
            return line?.split(separator: " ", omittingEmptySubsequences: true).dropFirst(3).first.flatMap { Int($0) }
        }
        let busy = try DaemonUnderTest(in: nil, arguments: ["--max-running", "64"], launcher: ["prlimit", "--nofile=512:8192"])
        try await busy.start()
        let raised = try #require(try softLimit(busy.pid))
        #expect(raised > 64 * 16 && raised < 8192, "soft limit \(raised)")
        #expect(busy.stop() == 0)

        let capped = try DaemonUnderTest(in: nil, arguments: ["--max-running", "64"], launcher: ["prlimit", "--nofile=512:900"])
        try await capped.start()
        #expect(try softLimit(capped.pid) == 900)
        #expect(capped.stop() == 0)

        // Without the path socket (its 528 connections alone pass 512), nothing more is needed.
        let plain = try DaemonUnderTest(in: nil, arguments: ["--path-socket", "none"], launcher: ["prlimit", "--nofile=512:8192"])
        try await plain.start()
        #expect(try softLimit(plain.pid) == 512)
        #expect(plain.stop() == 0)
    }

    @Test func noDaemonMeansExit69NamingTheSocket() throws {
        let files = try TemporaryDirectory()
        defer { files.remove() }
        let result = try reach(["queue", "--socket", files.path + "/none.sock", "list"])
        #expect(result.status == 69)
        #expect(result.stderr.contains(files.path + "/none.sock"))
        #expect(result.stderr.split(separator: "\n").count == 1)
    }

    /// The notify protocol: READY=1 with a STATUS once listening, WATCHDOG=1 pings when
    /// WATCHDOG_USEC is set, STOPPING=1 and exit 0 on SIGTERM; commands it runs do not inherit
    /// NOTIFY_SOCKET.
    @Test func tellsSystemdReadyStatusWatchdogAndStopping() async throws {
        let receiver = try NotifySocketReceiver()
        let daemon = try DaemonUnderTest(
            in: nil, arguments: ["--override", "lo=wired"], environment: ["NOTIFY_SOCKET=\(receiver.path)", "WATCHDOG_USEC=400000"])
        try await daemon.start()
        let ready = receiver.messages(timeout: .seconds(10)) { $0["READY"] == "1" }
        #expect(ready.last?["READY"] == "1")
        #expect(ready.last?["STATUS"]?.contains("no jobs queued") == true)
        var pings = 0
        _ = receiver.messages(timeout: .seconds(10)) { message in
            if message["WATCHDOG"] == "1" { pings += 1 }
            return pings >= 2
        }
        #expect(pings >= 2, "pings every 0.2 s for a 0.4 s watchdog")
        let added = try daemon.queue(["add", "run", "--", "sh", "-c", "echo \"notify=${NOTIFY_SOCKET:-unset}\""])
        let id = added.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        _ = try await daemon.waitForJob(id) { $0["state"] as? String == "succeeded" }
        let log = try String(contentsOfFile: daemon.stateDirectory + "/logs/job-\(id).log", encoding: .utf8)
        #expect(log == "notify=unset\n")
        #expect(daemon.stop() == 0)
        let stopping = receiver.messages(timeout: .seconds(5)) { $0["STOPPING"] == "1" }
        #expect(stopping.last?["STOPPING"] == "1")
    }

    /// A real Prometheus scrapes `--metrics-listen` on loopback and sees the job counts and the
    /// path the daemon holds in memory.
    @Test(.enabled(if: ProcessInfo.processInfo.environment["CI"] == "true" || PrometheusServer.isAvailable))
    func aRealPrometheusScrapesTheMetricsListener() async throws {
        let port = Int.random(in: 20_000..<40_000)
        let daemon = try DaemonUnderTest(in: nil, arguments: ["--override", "lo=wired", "--metrics-listen", "127.0.0.1:\(port)"])
        try await daemon.start()
        let added = try daemon.queue(["add", "run", "--not-before", "+1h", "--", "true"])
        #expect(added.status == 0)
        try await PrometheusServer.with(scraping: "127.0.0.1:\(port)") { prometheus in
            let paused = try await prometheus.waitForResult("reach_jobs{state=\"paused\"} == 1")
            #expect(paused.count == 1)
            let up = try await prometheus.waitForResult("up == 1")
            #expect(up.count == 1)
            let status = try prometheus.query("sum(reach_path_status)")
            #expect(status.first?.value == "1")
        }
        #expect(daemon.stop() == 0)
    }
}
