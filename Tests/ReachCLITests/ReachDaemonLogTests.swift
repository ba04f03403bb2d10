import Foundation
import ReachabilityLinux
import ReachabilityTestKit
import Testing

/// What `reach daemon` logs (standard error, the journal under systemd) at each `--log-level`.
@Suite("reach daemon: its log", .enabled(if: TestNamespace.isSupported), .serialized)
struct ReachDaemonLogTests {
    /// At `info`: a failed job (warning), a job waiting to retry and the path (info), in the
    /// words `reach queue` shows, without the URL's credentials; at the default level only the
    /// failure. `REACH_LOG_LEVEL` sets it too; a level that is none is refused, exit 64.
    @Test(arguments: [(["--log-level", "info"], [String]()), ([], ["REACH_LOG_LEVEL=INFO"]), ([], [])])
    func jobFailuresRetriesAndPathChangesAreLogged(_ options: [String], _ environment: [String]) async throws {
        let verbose = !(options.isEmpty && environment.isEmpty)
        let files = try TemporaryDirectory()
        defer { files.remove() }
        let server = try await TestServer(root: files.path, log: files.path + "/requests.log", in: nil)
        defer { server.stream.stop() }
        let log = files.path + "/daemon.log"
        let daemon = try DaemonUnderTest(
            in: nil, arguments: ["--override", "lo=wired"] + options, environment: environment,
            launcher: ["sh", "-c", "exec \"$@\" 2>>\(log)", "sh"])
        try await daemon.start()
        let missing = "http://alice:s3cret@127.0.0.1:\(server.port)/missing.bin?token=abc123"
        let failed = try daemon.queue(["add", "get", missing, "-o", daemon.files.path + "/missing.bin", "--settle", "0"])
        let failedID = failed.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        _ = try await daemon.waitForJob(failedID) { $0["state"] as? String == "failed" }
        let refused = try daemon.queue(["add", "get", "http://127.0.0.1:9/x.bin", "-o", daemon.files.path + "/x.bin", "--settle", "0"])
        let refusedID = refused.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        _ = try await daemon.waitForJob(refusedID) { reason($0) == "waitingToRetry" }
        #expect(daemon.stop() == 0)

        let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        let lines = text.split(separator: "\n")
        let failure = lines.first { $0.contains("job \(failedID) (download) failed:") }
        #expect(failure?.contains("warning") == true, "\(text)")
        #expect(failure?.contains("[httpStatus(404)]") == true, "\(text)")
        #expect(!text.contains("s3cret") && !text.contains("abc123"), "\(text)")
        let retrying = lines.contains { $0.contains("info") && $0.contains("job \(refusedID) (download) retrying:") }
        let path = lines.contains { $0.contains("info") && $0.contains("path: ") }
        #expect(retrying == verbose, "\(text)")
        #expect(path == verbose, "\(text)")
    }

    @Test func aLevelThatIsNoneIsRefused() throws {
        let option = try reach(["daemon", "--log-level", "loud", "--state-dir", "/nonexistent/reach"])
        #expect(option.status == 64)
        #expect(option.stderr.contains("--log-level: expected one of trace, debug, info, notice, warning, error, critical, not 'loud'"), "\(option.stderr)")
        let variable = try reach(["daemon", "--state-dir", "/nonexistent/reach"], environment: ["REACH_LOG_LEVEL": "chatty"])
        #expect(variable.status == 64)
        #expect(variable.stderr.contains("REACH_LOG_LEVEL: expected one of"), "\(variable.stderr)")
    }
}
