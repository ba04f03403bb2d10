import Foundation
import ReachabilityLinux
import ReachabilityTestKit
import Testing

/// A keep-alive connection never carries a job over an uplink its policy was not judged on:
/// the kernel's counters of both veths are the oracle, not what the daemon says.
@Suite("reach daemon: uplinks, their connections and the path in words", .enabled(if: TestNamespace.isSupported), .serialized)
struct ReachDaemonUplinkTests {
    /// The issue's scenario: a job to the server over "cellular" leaves a pooled connection;
    /// the default route moves to "Wi-Fi"; a `--when wifi --no-cellular` job to the same server
    /// must arrive over the Wi-Fi veth (it came over cellular, 20 MB of it, while the job said
    /// Wi-Fi).
    @Test func aPooledConnectionNeverOutlivesTheUplinkItWasJudgedOn() async throws {
        let (client, server, files) = try await routedServerNamespaces()
        defer { files.remove() }
        defer { server.stream.stop() }
        let size = 8_000_000
        let sha = try randomFile(files.path + "/big.bin", bytes: size)
        _ = try randomFile(files.path + "/small.bin", bytes: 1000)
        try client.ip("route", "add", "default", "via", "10.2.0.1", "dev", "wa", "metric", "100")
        let daemon = try DaemonUnderTest(in: client, arguments: RoutedNamespaces.overrides)
        try await daemon.start()

        // Over cellular: its connection stays in the pool (the server keeps it alive).
        try await runJob(daemon, ["add", "get", server.url("small.bin"), "-o", daemon.files.path + "/small.bin", "--settle", "0"])

        try client.ip("route", "add", "default", "via", "10.1.0.1", "dev", "va", "metric", "10")
        let before = try received(client)
        let onWiFi = try await runJob(
            daemon, ["add", "get", server.url("big.bin"), "-o", daemon.files.path + "/big.bin", "--sha256", sha, "--when", "wifi", "--no-cellular", "--settle", "0"])
        let after = try received(client)
        let wifi = after["va", default: 0] - before["va", default: 0]
        let cellular = after["wa", default: 0] - before["wa", default: 0]
        #expect(wifi >= Int64(size), "Wi-Fi veth received \(wifi) B, cellular \(cellular) B")
        #expect(cellular < 100_000, "cellular veth received \(cellular) B for a --no-cellular job (Wi-Fi \(wifi) B)")
        #expect(onWiFi["state"] as? String == "succeeded")
        #expect(daemon.stop() == 0)
    }

    /// The other way round: a job over Wi-Fi leaves a pooled connection; Wi-Fi goes away
    /// without a word to the server (the connection is dead, not closed); a job over cellular
    /// must open its own at once, not stall on the dead one until the read timeout (30 s).
    @Test func aConnectionOverAnUplinkThatWentAwayIsNotWaitedOn() async throws {
        let (client, server, files) = try await routedServerNamespaces()
        defer { files.remove() }
        defer { server.stream.stop() }
        _ = try randomFile(files.path + "/small.bin", bytes: 1000)
        try client.ip("route", "add", "default", "via", "10.1.0.1", "dev", "va", "metric", "10")
        try client.ip("route", "add", "default", "via", "10.2.0.1", "dev", "wa", "metric", "100")
        let daemon = try DaemonUnderTest(in: client, arguments: RoutedNamespaces.overrides)
        try await daemon.start()
        try await runJob(daemon, ["add", "get", server.url("small.bin"), "-o", daemon.files.path + "/first.bin", "--settle", "0"])

        try client.ip("link", "set", "va", "down")
        let before = try received(client)
        let began = ContinuousClock.now
        let overCellular = try await runJob(daemon, ["add", "get", server.url("small.bin"), "-o", daemon.files.path + "/again.bin", "--settle", "0"])
        let took = ContinuousClock.now - began
        let cellular = try received(client)["wa", default: 0] - before["wa", default: 0]
        #expect(overCellular["state"] as? String == "succeeded")
        #expect(cellular >= 1000, "the cellular veth received \(cellular) B")
        #expect(took < .seconds(15), "a job over cellular took \(took) after Wi-Fi went away")
        #expect(daemon.stop() == 0)
    }

    /// `reach queue watch` prints one line per change of the path in words: the daemon sends
    /// every path (an address added is one), and they printed as the same line two or three
    /// times per route switch. `--json` still has every path.
    @Test func queueWatchPrintsOneLinePerChangeOfThePathInWords() async throws {
        let namespaces = try await RoutedNamespaces()
        try namespaces.client.ip("route", "add", "default", "via", "10.2.0.1", "dev", "wa", "metric", "100")
        let daemon = try DaemonUnderTest(in: namespaces.client, arguments: RoutedNamespaces.overrides)
        try await daemon.start()
        let text = try ReachStream(["queue", "--socket", daemon.socket, "watch"], in: namespaces.client)
        let json = try ReachStream(["queue", "--socket", daemon.socket, "watch", "--json"], in: namespaces.client)
        defer {
            text.stop()
            json.stop()
        }
        _ = try await text.waitForLine { $0.hasPrefix("path: ") }
        _ = try await json.waitForLine { $0.contains(#""type":"path""#) }
        try namespaces.client.ip("addr", "add", "10.2.0.3/24", "dev", "wa")
        try await Task.sleep(for: .milliseconds(300))
        try namespaces.client.ip("route", "add", "default", "via", "10.1.0.1", "dev", "va", "metric", "10")
        _ = try await text.waitForLine { $0.hasPrefix("path: wifi") }
        try namespaces.client.ip("addr", "add", "10.1.0.3/24", "dev", "va")
        try await Task.sleep(for: .milliseconds(300))
        try namespaces.client.ip("route", "del", "default", "via", "10.1.0.1", "dev", "va", "metric", "10")
        _ = try await text.waitForLine(after: 2) { $0.hasPrefix("path: cellular") }
        try await Task.sleep(for: .milliseconds(500))
        let lines = text.received.filter { $0.hasPrefix("path: ") }
        #expect(lines.count == 3 && lines.first == lines.last && lines[0] != lines[1], "\(lines)")
        let paths = json.received.filter { $0.contains(#""type":"path""#) }
        #expect(paths.count > lines.count, "the daemon sent \(paths.count) paths for \(lines.count) lines")
        #expect(daemon.stop() == 0)
    }

    /// Adds a job and waits until it has succeeded; returns its JSON.
    @discardableResult
    private func runJob(_ daemon: DaemonUnderTest, _ arguments: [String]) async throws -> [String: Any] {
        let added = try daemon.queue(arguments)
        #expect(added.status == 0, "\(added.stderr)")
        let id = added.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        return try await daemon.waitForJob(id) { ["succeeded", "failed", "cancelled"].contains($0["state"] as? String ?? "") }
    }

    /// Bytes each of the client's uplinks has received, as the kernel counts them.
    private func received(_ namespace: TestNamespace) throws -> [String: Int64] {
        let links = try JSONSerialization.jsonObject(with: Data(try namespace.ip("-j", "-s", "link", "show").utf8)) as? [[String: Any]] ?? []
        return links.reduce(into: [:]) { counts, link in
            guard let name = link["ifname"] as? String, let stats = link["stats64"] as? [String: Any],
                let rx = stats["rx"] as? [String: Any], let bytes = rx["bytes"] as? NSNumber
            else { return }
            counts[name] = bytes.int64Value
        }
    }
}
