import Foundation
import Glibc
import ReachabilityLinux
import ReachabilityTestKit
import Testing

/// A `reach-testserver` serving `directory` on 127.0.0.1 (inside `namespace` when given).
struct TestServer {
    let stream: ReachStream
    let port: Int
    let log: String

    let address: String

    init(root: String, log: String, in namespace: TestNamespace?, address: String = "127.0.0.1") async throws {
        stream = try ReachStream(["--root", root, "--port", "0", "--log", log, "--host", address], in: namespace, binary: testServerBinary)
        let line = try await stream.waitForLine { $0.hasPrefix("listening on ") }
        port = try #require(Int(line.split(separator: ":").last ?? ""))
        self.log = log
        self.address = address
    }

    func url(_ name: String) -> String { "http://\(address):\(port)/\(name)" }

    /// The `Range` headers of the GET requests the server saw, in order (nil: no Range).
    func ranges() throws -> [String?] {
        let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        return try text.split(separator: "\n").compactMap { line in
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            guard object?["method"] as? String == "GET" else { return nil }
            return .some(object?["range"] as? String)
        }
    }

    /// The requests logged so far: method, the bytes `Range` asked for (end exclusive), and when
    /// the server read it (microseconds of the monotonic clock).
    func requests() throws -> [(method: String, range: Range<Int>?, began: Int)] {
        let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        return try text.split(separator: "\n").map { line in
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            let header = (object?["range"] as? String)?.dropFirst("bytes=".count).split(separator: "-").compactMap { Int($0) }
            let range = header.flatMap { $0.count == 2 ? $0[0]..<($0[1] + 1) : nil }
            return (object?["method"] as? String ?? "", range, object?["began"] as? Int ?? 0)
        }
    }

    func bytesSent() throws -> Int {
        let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        return try text.split(separator: "\n").reduce(0) { total, line in
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            return total + (object?["method"] as? String == "GET" ? (object?["bytes"] as? Int ?? 0) : 0)
        }
    }
}

func randomFile(_ path: String, bytes: Int) throws -> String {
    var generator = SystemRandomNumberGenerator()
    let data = Data((0..<bytes).map { _ in UInt8.random(in: 0...255, using: &generator) })
    try data.write(to: URL(fileURLWithPath: path))
    return try TestNamespace.execute(["sha256sum", path]).split(separator: " ").first.map(String.init) ?? ""
}

/// The completed ranges a segmented download's sidecar records, as `[first, end]` pairs.
private func segmentRanges(_ path: String) throws -> [[Int]] {
    let object = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any]
    return object?["completed"] as? [[Int]] ?? []
}

/// A namespace with an uplink (`up0`, a veth with a default route), so the path is reachable:
/// `reach get` waits for a network otherwise, even for a server on loopback.
private func onlineNamespace() async throws -> TestNamespace {
    let ns = try TestNamespace()
    try ns.ipBatch(["link add up0 type veth peer name up0-peer", "link set up0-peer up", "link set up0 up", "addr add 10.9.0.2/24 dev up0"])
    for _ in 0..<300 where !(try ns.ip("link", "show", "up0").contains("LOWER_UP")) { try await Task.sleep(for: .milliseconds(10)) }
    try ns.ip("route", "add", "default", "via", "10.9.0.1", "dev", "up0")
    return ns
}

private func jsonEvents(_ stream: ReachStream) -> [[String: Any]] {
    stream.received.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
}

/// ``RoutedNamespaces`` with a test server on the server's address.
func routedServerNamespaces() async throws -> (TestNamespace, TestServer, TemporaryDirectory) {
    let namespaces = try await RoutedNamespaces()
    let files = try TemporaryDirectory()
    try FileManager.default.createDirectory(atPath: files.path + "/out", withIntermediateDirectories: true)
    let server = try await TestServer(
        root: files.path, log: files.path + "/requests.log", in: namespaces.server, address: RoutedNamespaces.serverAddress)
    return (namespaces.client, server, files)
}

@Suite("reach get", .enabled(if: TestNamespace.isSupported), .serialized)
struct ReachGetTests {
    @Test func pausesWhenTheRouteToTheServerMovesToCellularAndResumesOnWiFiLosingNoByte() async throws {
        let (client, server, files) = try await routedServerNamespaces()
        defer { files.remove() }
        defer { server.stream.stop() }
        let size = 3_000_000
        let sha = try randomFile(files.path + "/big.bin", bytes: size)
        let destination = files.path + "/out/big.bin"
        // No default route at all: the server is reached by a host route over the Wi-Fi veth.
        try client.ip("route", "add", "10.9.0.1", "via", "10.1.0.1", "dev", "va", "metric", "100")
        let get = try ReachStream(
            ["get", "--json", "--no-cellular", "--settle", "0.2", "--override", "va=wifi", "--override", "wa=cellular", "--sysfs-root", "/nonexistent",
             "--sha256", sha, "-o", destination, server.url("big.bin?slow=1000000")], in: client)
        defer { get.stop() }
        let started = try await get.waitForLine { $0.contains("\"event\":\"started\"") }
        #expect(started.contains("wifi"))
        _ = try await get.waitForLine { $0.contains("\"event\":\"progress\"") && !$0.contains("\"bytes\":0,") }
        // (The download is throttled to 1 MB/s by the server, so it is mid-way now.)

        // A cheaper host route through the cellular veth: only the route to the server changed
        // (there is no default path to change), and the job is judged by it.
        try client.ip("route", "add", "10.9.0.1", "via", "10.2.0.1", "dev", "wa", "metric", "10")
        let paused = try await get.waitForLine { $0.contains("\"event\":\"paused\"") }
        #expect(paused.contains("\"reason\":\"cellularNotAllowed\""))
        let partial = (try? FileManager.default.attributesOfItem(atPath: destination + ".part")[.size] as? Int) ?? 0
        #expect(partial > 0 && partial < size)
        let pausedAt = get.received.count

        try client.ip("route", "del", "10.9.0.1", "via", "10.2.0.1", "dev", "wa", "metric", "10")
        _ = try await get.waitForLine(after: pausedAt) { $0.contains("\"event\":\"resumed\"") }
        let done = try await get.waitForLine(bound: .seconds(60)) { $0.contains("\"event\":\"done\"") }
        #expect(get.waitForExit() == 0)

        let result = try #require(try JSONSerialization.jsonObject(with: Data(done.utf8)) as? [String: Any])
        #expect(result["sha256"] as? String == sha)
        #expect(result["bytes"] as? Int == size)
        #expect(result["refetched"] as? Int == 0)
        #expect(try TestNamespace.execute(["sha256sum", destination]).hasPrefix(sha))
        // The server sent every byte exactly once: the second request started where the first stopped.
        let ranges = try server.ranges()
        #expect(ranges.count >= 2)
        #expect(ranges.first == .some(nil))
        #expect(ranges.dropFirst().allSatisfy { $0?.hasPrefix("bytes=") == true })
        #expect(try server.bytesSent() == size)
    }

    @Test func maxCellularHoldsWhenTheServerHidesTheSize() async throws {
        let (client, server, files) = try await routedServerNamespaces()
        defer { files.remove() }
        defer { server.stream.stop() }
        let size = 3_000_000
        let sha = try randomFile(files.path + "/big.bin", bytes: size)
        let destination = files.path + "/out/big.bin"
        try client.ip("route", "add", "10.9.0.1", "via", "10.2.0.1", "dev", "wa")
        // A chunked body: no size before or during the transfer; the limit is 1 MB on cellular.
        let get = try ReachStream(
            ["get", "--json", "--max-cellular", "1MB", "--settle", "0.2", "--override", "va=wifi", "--override", "wa=cellular",
             "--sysfs-root", "/nonexistent", "--sha256", sha, "-o", destination, server.url("big.bin?chunked=1&slow=2000000")], in: client)
        defer { get.stop() }
        let paused = try await get.waitForLine(bound: .seconds(30)) { $0.contains("\"event\":\"paused\"") }
        #expect(paused.contains("\"reason\":\"overCellularSizeLimit\""))
        let partial = (try? FileManager.default.attributesOfItem(atPath: destination + ".part")[.size] as? Int) ?? 0
        #expect(partial > 0)
        #expect(partial <= 1_000_000, "moved \(partial) bytes on cellular with a 1 MB limit")

        // Wi-Fi reaches the server again: the rest comes over it, resumed, not fetched again.
        let pausedAt = get.received.count
        try client.ip("route", "replace", "10.9.0.1", "via", "10.1.0.1", "dev", "va")
        _ = try await get.waitForLine(after: pausedAt) { $0.contains("\"event\":\"resumed\"") }
        _ = try await get.waitForLine(bound: .seconds(60)) { $0.contains("\"event\":\"done\"") }
        #expect(get.waitForExit() == 0)
        #expect(try TestNamespace.execute(["sha256sum", destination]).hasPrefix(sha))
        // Nothing past the limit was kept; what the server had already put on the wire when the
        // job stopped (socket buffers, at most a few hundred KiB here) was sent again.
        let sent = try server.bytesSent()
        #expect(sent >= size && sent <= size + 512 << 10, "server sent \(sent) bytes for \(size)")
    }

    /// The case: a download whose size the server hides starts on Wi-Fi; its route moves
    /// to cellular, which `--max-cellular 1MB` allows up to 1 MB. The run starts over on
    /// cellular with that budget: it stops there at the limit (never 10 MB over cellular), and
    /// the bytes are counted against the network that carried them.
    @Test func aRouteThatMovesMidDownloadIsJudgedAgainWithTheNewNetworksLimit() async throws {
        let (client, server, files) = try await routedServerNamespaces()
        defer { files.remove() }
        defer { server.stream.stop() }
        let size = 4_000_000
        let sha = try randomFile(files.path + "/big.bin", bytes: size)
        let destination = files.path + "/out/big.bin"
        try client.ip("route", "add", "10.9.0.1", "via", "10.1.0.1", "dev", "va", "metric", "100")
        let get = try ReachStream(
            ["get", "--json", "--max-cellular", "1MB", "--settle", "0.2", "--override", "va=wifi", "--override", "wa=cellular",
             "--sysfs-root", "/nonexistent", "--sha256", sha, "-o", destination, server.url("big.bin?chunked=1&slow=800000")], in: client)
        defer { get.stop() }
        _ = try await get.waitForLine { $0.contains("\"event\":\"progress\"") && !$0.contains("\"bytes\":0,") }
        let onWifi = (try? FileManager.default.attributesOfItem(atPath: destination + ".part")[.size] as? Int) ?? 0
        try client.ip("route", "add", "10.9.0.1", "via", "10.2.0.1", "dev", "wa", "metric", "10")
        let paused = try await get.waitForLine(bound: .seconds(30)) { $0.contains("\"event\":\"paused\"") }
        #expect(paused.contains("\"reason\":\"overCellularSizeLimit\""), "\(paused)")
        let partial = (try? FileManager.default.attributesOfItem(atPath: destination + ".part")[.size] as? Int) ?? 0
        // What arrived after the move came over cellular: at most the limit (plus what was in
        // flight on Wi-Fi when the route moved, which the first part's size bounds).
        #expect(partial < size, "the whole file came although cellular allows 1 MB")
        #expect(partial - onWifi <= 1_000_000 + 900_000, "moved \(partial - onWifi) bytes after the route moved to cellular")
        try client.ip("route", "del", "10.9.0.1", "via", "10.2.0.1", "dev", "wa", "metric", "10")
        _ = try await get.waitForLine(bound: .seconds(60)) { $0.contains("\"event\":\"done\"") }
        #expect(get.waitForExit() == 0)
        #expect(try TestNamespace.execute(["sha256sum", destination]).hasPrefix(sha))
    }

    /// Runs `body` with `small.bin` (100,000 random bytes, SHA-256 `sha`) in `files`, served by
    /// reach-testserver on the loopback of a namespace that has nothing else (no default route).
    private func withLoopbackFile(_ body: (TestNamespace, _ files: String, _ sha: String, TestServer) async throws -> Void) async throws {
        let ns = try TestNamespace()
        let files = try TemporaryDirectory()
        defer { files.remove() }
        let sha = try randomFile(files.path + "/small.bin", bytes: 100_000)
        let server = try await TestServer(root: files.path, log: files.path + "/requests.log", in: ns)
        defer { server.stream.stop() }
        try await body(ns, files.path, sha, server)
    }

    @Test func aLoopbackServerNeedsNoDefaultRoute() async throws {
        try await withLoopbackFile { ns, files, sha, server in
            let result = try reach(["get", "--no-cellular", "--no-expensive", "--sha256", sha, "-o", files + "/copy.bin", server.url("small.bin")], in: ns)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(try TestNamespace.execute(["sha256sum", files + "/copy.bin"]).hasPrefix(sha))
        }
    }

    @Test func theHashIsComputedOnlyWhenAskedFor() async throws {
        try await withLoopbackFile { ns, files, sha, server in
            let plain = try reach(["get", "--json", "-o", files + "/plain.bin", server.url("small.bin")], in: ns)
            #expect(plain.status == 0, "\(plain.stderr)")
            #expect(plain.stdout.contains("\"event\":\"done\"") && plain.stdout.contains("\"sha256\":null"), "\(plain.stdout)")
            let shown = try reach(["get", "--show-sha256", "-o", files + "/shown.bin", server.url("small.bin")], in: ns)
            #expect(shown.status == 0, "\(shown.stderr)")
            #expect(shown.stderr.contains("shown.bin: done, ") && shown.stderr.contains(", sha256 \(sha)"), "\(shown.stderr)")
            #expect(try TestNamespace.execute(["sha256sum", files + "/plain.bin"]).hasPrefix(sha))
        }
    }

    @Test func aKilledDownloadResumesOnTheNextRun() async throws {
        let ns = try await onlineNamespace()
        let files = try TemporaryDirectory()
        defer { files.remove() }
        let size = 2_000_000
        let sha = try randomFile(files.path + "/data.bin", bytes: size)
        let server = try await TestServer(root: files.path, log: files.path + "/requests.log", in: ns)
        defer { server.stream.stop() }
        let destination = files.path + "/data.out"

        let first = try ReachStream(["get", "--json", "-o", destination, server.url("data.bin?slow=1000000")], in: ns)
        defer { first.stop() }
        _ = try await first.waitForLine { $0.contains("\"event\":\"progress\"") && !$0.contains("\"bytes\":0,") }
        first.kill()
        let partial = try #require(try FileManager.default.attributesOfItem(atPath: destination + ".part")[.size] as? Int)
        #expect(partial > 0 && partial < size)
        #expect(FileManager.default.fileExists(atPath: destination + ".part.json"))

        // The same URL: a partial file of another URL is never resumed.
        let second = try ReachStream(["get", "--json", "--sha256", sha, "-o", destination, server.url("data.bin?slow=1000000")], in: ns)
        defer { second.stop() }
        let done = try await second.waitForLine(bound: .seconds(60)) { $0.contains("\"event\":\"done\"") }
        #expect(second.waitForExit() == 0)
        let result = try #require(try JSONSerialization.jsonObject(with: Data(done.utf8)) as? [String: Any])
        #expect(result["sha256"] as? String == sha)
        #expect(result["refetched"] as? Int == 0)
        let resumedFrom = try #require(try server.ranges().last ?? nil)
        #expect(resumedFrom == "bytes=\(partial)-")
        #expect(result["downloaded"] as? Int == size - partial)
        #expect(result["restarts"] as? Int == 0)
        #expect(!FileManager.default.fileExists(atPath: destination + ".part"))
        #expect(!FileManager.default.fileExists(atPath: destination + ".part.json"))
    }

    @Test func aKilledSegmentedDownloadResumesEachSegmentOnTheNextRun() async throws {
        let ns = try await onlineNamespace()
        let files = try TemporaryDirectory()
        defer { files.remove() }
        let size = 12_000_000
        let sha = try randomFile(files.path + "/data.bin", bytes: size)
        let server = try await TestServer(root: files.path, log: files.path + "/requests.log", in: ns)
        defer { server.stream.stop() }
        let destination = files.path + "/data.out"
        // 1.5 MB/s per request: four connections under way for seconds.
        let url = server.url("data.bin?slow=1500000")

        let first = try ReachStream(["get", "--json", "--connections", "4", "-o", destination, url], in: ns)
        defer { first.stop() }
        // Wait for a checkpoint that records several segments under way, then SIGKILL.
        var recorded: [[Int]] = []
        for _ in 0..<600 where recorded.count < 2 {
            try await Task.sleep(for: .milliseconds(20))
            recorded = (try? segmentRanges(destination + ".part.json")) ?? []
        }
        first.kill()
        #expect(recorded.count >= 2, "no checkpoint with several segments: \(recorded)")
        // The sidecar as the killed process left it (a checkpoint may have followed the read).
        let completed = try segmentRanges(destination + ".part.json")
        let done = completed.reduce(0) { $0 + $1[1] - $1[0] }
        #expect(done > 0 && done < size)
        // The killed process's last responses may be logged later: the second run's requests
        // are those read after it started.
        let resumedAt = Int(DispatchTime.now().uptimeNanoseconds / 1000)

        let second = try ReachStream(["get", "--json", "--connections", "4", "--sha256", sha, "-o", destination, url], in: ns)
        defer { second.stop() }
        let line = try await second.waitForLine(bound: .seconds(60)) { $0.contains("\"event\":\"done\"") }
        #expect(second.waitForExit() == 0)
        let result = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(result["sha256"] as? String == sha)
        #expect(result["refetched"] as? Int == 0)
        #expect(result["restarts"] as? Int == 0)
        // Exactly the bytes missing from the recorded segments, each asked for once.
        #expect(result["downloaded"] as? Int == size - done)
        #expect(try TestNamespace.execute(["sha256sum", destination]).hasPrefix(sha))
        let resumed = try server.requests().filter { $0.method == "GET" && $0.began >= resumedAt }
        #expect(!resumed.isEmpty)
        for request in resumed {
            let asked = try #require(request.range)
            #expect(!completed.contains { $0[0] < asked.upperBound && asked.lowerBound < $0[1] }, "\(asked) overlaps \(completed)")
        }
        #expect(!FileManager.default.fileExists(atPath: destination + ".part"))
        #expect(!FileManager.default.fileExists(atPath: destination + ".part.json"))
    }

    @Test(arguments: [
        (["get", "ftp://example.invalid/x"], "not an http:// or https:// URL with a host (and a port in 1-65535): 'ftp://example.invalid/x'"),
        (["get", "--max-cellular", "lots", "http://127.0.0.1:9/x"], "--max-cellular: not a size: 'lots'"),
        (["get", "--sha256", "abc", "http://127.0.0.1:9/x"], "--sha256: expected 64 hex digits"),
        (["get", "--show-sha256", "-o", "-", "http://127.0.0.1:9/x"], "--show-sha256 cannot hash standard output"),
        (["get", "--connections", "0", "http://127.0.0.1:9/x"], "--connections must be from 1 to 16 connections, not 0"),
        (["get", "--connections", "17", "http://127.0.0.1:9/x"], "--connections must be from 1 to 16 connections, not 17"),
    ])
    func badUsageExits64(_ arguments: [String], _ message: String) throws {
        let result = try reach(arguments)
        #expect(result.status == 64)
        #expect(result.stderr.contains(message))
    }

    @Test func aMissingFileAndANotWritableDestinationAreClearErrors() async throws {
        let ns = try await onlineNamespace()
        let files = try TemporaryDirectory()
        defer { files.remove() }
        _ = try randomFile(files.path + "/a.bin", bytes: 1000)
        let server = try await TestServer(root: files.path, log: files.path + "/requests.log", in: ns)
        defer { server.stream.stop() }
        let missing = try reach(["get", "-o", files.path + "/x", server.url("missing.bin")], in: ns)
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("answered HTTP 404"))
        #expect(!FileManager.default.fileExists(atPath: files.path + "/x"))

        let requestsBefore = try server.ranges().count
        let unwritable = try reach(["get", "-o", "/nonexistent/dir/a.bin", server.url("a.bin")], in: ns)
        #expect(unwritable.status == 64)
        #expect(unwritable.stderr.contains("/nonexistent/dir"))
        // Refused before any download request.
        #expect(try server.ranges().count == requestsBefore)
    }
}
