import Foundation
import Glibc
import ReachabilityLinux
import ReachabilityTestKit
import Testing

/// A `reach-testserver` on 127.0.0.1 inside `namespace`, logging to `files/requests.log`.
private struct LoggingServer {
    let stream: ReachStream
    let port: Int
    let log: String

    init(root: String, in namespace: TestNamespace) async throws {
        log = root + "/requests.log"
        stream = try ReachStream(["--root", root, "--port", "0", "--log", log], in: namespace, binary: testServerBinary)
        let line = try await stream.waitForLine { $0.hasPrefix("listening on ") }
        port = try #require(Int(line.split(separator: ":").last ?? ""))
    }

    func url(_ name: String) -> String { "http://127.0.0.1:\(port)/\(name)" }

    /// The logged requests once there are at least `count` (the server logs a request when its
    /// response ends, which can be just after the client is gone); 5 s at most.
    func requests(atLeast count: Int) async throws -> [[String: Any]] {
        for _ in 0..<250 where try requests().count < count { try await Task.sleep(for: .milliseconds(20)) }
        return try requests()
    }

    /// The logged requests, as JSON objects.
    func requests() throws -> [[String: Any]] {
        let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        return try text.split(separator: "\n").map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
    }
}

/// What `curl`/`wget` users expect of `reach get`, against a server on loopback in a private
/// namespace (a loopback server is always allowed: no uplink is needed).
@Suite("reach get: proxies, headers, standard output, safe files", .enabled(if: TestNamespace.isSupported), .serialized)
struct ReachGetOptionsTests {
    @Test func standardOutputCarriesTheBodyAndJSONGoesToStandardError() async throws {
        let ns = try TestNamespace()
        let files = try TemporaryDirectory()
        defer { files.remove() }
        let sha = try randomFile(files.path + "/out.bin", bytes: 300_000)
        let server = try await LoggingServer(root: files.path, in: ns)
        defer { server.stream.stop() }
        let piped = try shell(
            "nsenter --net=\(ns.namespace.path) \(reachBinary) get --json -o - '\(server.url("out.bin"))' 2>\(files.path)/err | sha256sum")
        #expect(piped.stdout.hasPrefix(sha), "\(piped.stderr)")
        let events = try String(contentsOfFile: files.path + "/err", encoding: .utf8)
        #expect(events.contains("\"event\":\"done\""))
        #expect(events.contains("\"path\":\"-\""))
    }

    @Test func headersReachTheServerAndReservedOnesAreRefused() async throws {
        let ns = try TestNamespace()
        let files = try TemporaryDirectory()
        defer { files.remove() }
        _ = try randomFile(files.path + "/h.bin", bytes: 1000)
        let server = try await LoggingServer(root: files.path, in: ns)
        defer { server.stream.stop() }
        let result = try reach(
            ["get", "-H", "X-Fleet: gw-17", "-H", "Authorization: Bearer abc", "-o", files.path + "/copy.bin", server.url("h.bin")], in: ns)
        #expect(result.status == 0, "\(result.stderr)")
        let sent = try server.requests().flatMap { $0["headers"] as? [String] ?? [] }
        #expect(sent.contains("X-Fleet: gw-17"))
        #expect(sent.contains("Authorization: Bearer abc"))

        let refused = try reach(["get", "-H", "Range: bytes=0-", server.url("h.bin")], in: ns)
        #expect(refused.status == 64)
        #expect(refused.stderr.contains("-H Range: set by reach itself"))
        let split = try reach(["get", "-H", "X-A: 1\r\nX-B: 2", server.url("h.bin")], in: ns)
        #expect(split.status == 64)
        #expect(try server.requests().count == 1)
    }

    @Test(.enabled(if: ProcessInfo.processInfo.environment["CI"] == "true" || ProxyTestServer.isAvailable))
    func httpProxyAndNoProxyAreHonoured() async throws {
        let ns = try TestNamespace()
        let files = try TemporaryDirectory()
        defer { files.remove() }
        let sha = try randomFile(files.path + "/p.bin", bytes: 200_000)
        let server = try await LoggingServer(root: files.path, in: ns)
        defer { server.stream.stop() }
        let proxy = try ProxyTestServer.start(in: ns)
        defer { proxy.stop() }

        let proxied = try reach(["get", "--sha256", sha, "-o", files.path + "/via.bin", server.url("p.bin")], in: ns, environment: ["http_proxy": proxy.url])
        #expect(proxied.status == 0, "\(proxied.stderr)")
        // async-http-client tunnels through an HTTP proxy with CONNECT, for http:// URLs too.
        #expect(proxy.requests().contains("CONNECT 127.0.0.1:\(server.port) HTTP/1.1"), "\(proxy.requests())")

        let before = proxy.requests().count
        let direct = try reach(
            ["get", "--sha256", sha, "-o", files.path + "/direct.bin", server.url("p.bin")], in: ns,
            environment: ["http_proxy": proxy.url, "no_proxy": "127.0.0.0/8"])
        #expect(direct.status == 0, "\(direct.stderr)")
        #expect(proxy.requests().count == before)

        // A proxy that refuses connections: a clear error, not a hang.
        let dead = try reach(
            ["get", "--retries", "1", "-o", files.path + "/dead.bin", server.url("p.bin")], in: ns, environment: ["http_proxy": "http://127.0.0.1:1"])
        #expect(dead.status == 1)
        #expect(!dead.stderr.isEmpty)
    }

    @Test func credentialsNeverReachOutputOrTheSidecar() async throws {
        let ns = try TestNamespace()
        let files = try TemporaryDirectory()
        defer { files.remove() }
        _ = try randomFile(files.path + "/c.bin", bytes: 2_000_000)
        let server = try await LoggingServer(root: files.path, in: ns)
        defer { server.stream.stop() }
        let destination = files.path + "/c.out"
        let url = "http://bob:pa55word@127.0.0.1:\(server.port)/c.bin?sig=topsecret&slow=500000"
        let get = try ReachStream(["get", "--json", "-o", destination, url], in: ns)
        defer { get.stop() }
        _ = try await get.waitForLine { $0.contains("\"event\":\"progress\"") && !$0.contains("\"bytes\":0,") }
        get.kill()
        let sidecar = try String(contentsOfFile: destination + ".part.json", encoding: .utf8)
        let output = get.received.joined(separator: "\n")
        for secret in ["pa55word", "topsecret", "bob:"] {
            #expect(!sidecar.contains(secret))
            #expect(!output.contains(secret))
        }
        #expect(output.contains("***@127.0.0.1"))
        let sent = try await server.requests(atLeast: 1).flatMap { $0["headers"] as? [String] ?? [] }
        // base64("bob:pa55word")
        #expect(sent.contains("Authorization: Basic Ym9iOnBhNTV3b3Jk"))

        let failed = try reach(["get", "-o", files.path + "/x", "http://bob:pa55word@127.0.0.1:\(server.port)/missing?token=abc"], in: ns)
        #expect(failed.status == 1)
        #expect(!failed.stderr.contains("pa55word") && !failed.stderr.contains("token=abc"))
    }

    @Test(arguments: ["part symlink", "device", "fifo"])
    func unsafeDestinationsExit64BeforeAnyRequest(_ kind: String) async throws {
        let ns = try TestNamespace()
        let files = try TemporaryDirectory()
        defer { files.remove() }
        _ = try randomFile(files.path + "/s.bin", bytes: 1000)
        let server = try await LoggingServer(root: files.path, in: ns)
        defer { server.stream.stop() }
        let victim = files.path + "/victim"
        try "precious".write(toFile: victim, atomically: false, encoding: .utf8)
        let destination = files.path + "/dest.bin"
        switch kind {
        case "part symlink": #expect(symlink(victim, destination + ".part") == 0)
        case "device": #expect(mknod(destination, S_IFCHR | 0o600, dev_t(1 << 8 | 3)) == 0, "mknod needs root")
        default: #expect(mkfifo(destination, 0o600) == 0)
        }
        let result = try reach(["get", "-o", destination, server.url("s.bin")], in: ns)
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr.contains(kind == "part symlink" ? destination + ".part" : destination))
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "precious")
        var info = stat()
        #expect(lstat(destination, &info) == 0 || kind == "part symlink")
        if kind == "device" { #expect(info.st_mode & S_IFMT == S_IFCHR) }
        if kind == "fifo" { #expect(info.st_mode & S_IFMT == S_IFIFO) }
        #expect(try server.requests().isEmpty)
    }
}
