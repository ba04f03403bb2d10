import Foundation
import ReachabilityLinux
import ReachabilityTestKit
import Testing

/// Jobs refused when added, for what would only fail when they run.
@Suite("reach daemon: refused at add", .enabled(if: TestNamespace.isSupported), .serialized)
struct ReachDaemonAddTests {
    /// A user's daemon (here `nobody`) asked by root for a download into `/root`: refused with
    /// the reason and exit 64, as `reach get` refuses it, not accepted and failed later with
    /// "open directory /root: Permission denied". A directory it may write is accepted.
    @Test func aDownloadIntoADirectoryTheDaemonMayNotWriteIsRefused() async throws {
        let daemon = try DaemonUnderTest(
            in: nil, arguments: ["--override", "lo=wired"], launcher: ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"])
        _ = try shell("chown -R 65534:65534 \(daemon.files.path) && chmod 755 \(daemon.files.path)")
        try await daemon.start()
        let later = ["--not-before", "2030-01-01T00:00:00Z"]
        let refused = try daemon.queue(["add", "get", "http://127.0.0.1:9/x.bin", "-o", "/root/x.bin"] + later)
        #expect(refused.status == 64, "\(refused.stdout) \(refused.stderr)")
        #expect(refused.stderr.contains("destination: the daemon (uid 65534) may not create files in '/root': Permission denied"), "\(refused.stderr)")
        let accepted = try daemon.queue(["add", "get", "http://127.0.0.1:9/x.bin", "-o", daemon.files.path + "/x.bin"] + later)
        #expect(accepted.status == 0, "\(accepted.stderr)")
        let listed = try daemon.queue(["list", "--json"])
        #expect(listed.stdout.components(separatedBy: "\"id\"").count == 2, "only the accepted job is kept: \(listed.stdout)")
        #expect(daemon.stop() == 0)
    }
}
