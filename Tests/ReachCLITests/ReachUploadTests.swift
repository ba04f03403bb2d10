import Foundation
import Glibc
import ReachabilityLinux
import ReachabilityTestKit
import Testing

private let serversReady =
    ProcessInfo.processInfo.environment["CI"] == "true"
    || (UploadTestServer.pythonServersAvailable && UploadTestServer.apacheAvailable)

/// A namespace with an uplink (`up0`, a veth with a default route), so the path is reachable.
private func onlineNamespace() async throws -> TestNamespace {
    let ns = try TestNamespace()
    try ns.ipBatch(["link add up0 type veth peer name up0-peer", "link set up0-peer up", "link set up0 up", "addr add 10.9.0.2/24 dev up0"])
    for _ in 0..<300 where !(try ns.ip("link", "show", "up0").contains("LOWER_UP")) { try await Task.sleep(for: .milliseconds(10)) }
    try ns.ip("route", "add", "default", "via", "10.9.0.1", "dev", "up0")
    return ns
}

/// `size` random bytes in `directory/name`; returns the path and its SHA-256.
private func randomFile(_ directory: TemporaryDirectory, _ name: String, bytes: Int) throws -> (path: String, sha256: String) {
    let path = directory.path + "/" + name
    _ = try TestNamespace.execute(["sh", "-c", "head -c \(bytes) /dev/urandom > '\(path)'"])
    return (path, try sha256(path))
}

private func sha256(_ path: String) throws -> String {
    String(try TestNamespace.execute(["sha256sum", path]).prefix(64))
}

private func json(_ line: String) throws -> [String: Any] {
    try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
}

/// The one resume record in `directory`.
private func record(in directory: String) throws -> [String: Any]? {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
    guard let name = names.first(where: { $0.hasSuffix(".json") }) else { return nil }
    return try json(String(contentsOfFile: directory + "/" + name, encoding: .utf8))
}

/// The tus server's offset for `location`, asked by `curl -I` inside `ns`, once the server has
/// finished with the killed client's request: it reads what the kernel had buffered and
/// confirms its offset only then, so this waits until the offset equals the bytes it stored and
/// stays so for 200 ms.
private func settledOffset(_ location: String, server: UploadTestServer, in ns: TestNamespace) async throws -> Int64 {
    var previous: Int64?
    for _ in 0..<150 {
        let head = try ns.run(["curl", "-sS", "-I", "-H", "Tus-Resumable: 1.0.0", location])
        let line = head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("upload-offset:") }
        let offset = line.flatMap { Int64($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) }
        let stored = (try? FileManager.default.attributesOfItem(atPath: server.storedPath(location))[.size] as? NSNumber)?.int64Value
        if let offset, offset == stored, offset == previous { return offset }
        previous = offset == stored ? offset : nil
        try await Task.sleep(for: .milliseconds(200))
    }
    throw TestNamespaceError(message: "the offset of \(location) did not settle")
}

@Suite("reach upload", .serialized)
struct ReachUploadTests {
    @Test(.enabled(if: TestNamespace.isSupported && serversReady))
    func aKilledUploadResumesOnTheNextRunSendingOnlyTheRest() async throws {
        let ns = try await onlineNamespace()
        let files = try TemporaryDirectory()
        defer { files.remove() }
        let size = 200 << 20
        let source = try randomFile(files, "big.bin", bytes: size)
        let state = files.path + "/state"
        // 50 MB/s, so the kill lands part-way through the 200 MiB.
        let server = try UploadTestServer.tus(in: ns, rate: 50_000_000)
        defer { server.stop() }
        let arguments = ["upload", "--json", "--state-dir", state, source.path, server.url]

        let first = try ReachStream(arguments, in: ns)
        defer { first.stop() }
        _ = try await first.waitForLine { $0.contains("\"event\":\"progress\"") && !$0.contains("\"bytes\":0,") }
        let location = try #require(try record(in: state)?["location"] as? String)
        try await server.waitForStoredBytes(location, atLeast: 1 << 20)
        first.kill()

        // What the server holds after the kill, by its own HEAD.
        let held = try await settledOffset(location, server: server, in: ns)
        #expect(held > 0 && held < Int64(size))
        #expect(try record(in: state)?["location"] as? String == location)

        let second = try ReachStream(arguments, in: ns)
        defer { second.stop() }
        let doneLine = try await second.waitForLine(bound: .seconds(120)) { $0.contains("\"event\":\"done\"") }
        #expect(second.waitForExit() == 0)
        let done = try json(doneLine)
        #expect(done["tus"] as? Bool == true)
        #expect(done["location"] as? String == location)
        #expect(done["resumedFrom"] as? Int == Int(held))
        // The second run sent exactly the bytes the server lacked: none twice.
        #expect(done["sent"] as? Int == size - Int(held))
        #expect(done["resent"] as? Int == 0)
        // The first report of bytes sent (the job's first line shows what it knew before asking).
        let firstProgress = try json(try #require(second.received.first { $0.contains("\"event\":\"progress\"") && !$0.contains("\"sent\":0}") }))
        #expect((firstProgress["bytes"] as? Int ?? 0) - (firstProgress["sent"] as? Int ?? 0) == Int(held))
        #expect(try sha256(server.storedPath(location)) == source.sha256)
        #expect(try record(in: state) == nil)
    }

    @Test(.enabled(if: TestNamespace.isSupported && serversReady))
    func pausesWhenTheRouteMovesToCellularAndResumesByTus() async throws {
        let namespaces = try await RoutedNamespaces()
        let ns = namespaces.client
        // Small socket buffers (per namespace): otherwise, under load, the kernel can hold most
        // of the file in flight before the pause, and the server stores it all anyway.
        try namespaces.client.run(["sysctl", "-qw", "net.ipv4.tcp_wmem=4096 65536 262144"])
        try namespaces.server.run(["sysctl", "-qw", "net.ipv4.tcp_rmem=4096 65536 262144"])
        // No default route: the server is reached by a host route over the "Wi-Fi" veth.
        try namespaces.route(via: .wifi, metric: 100)
        let files = try TemporaryDirectory()
        defer { files.remove() }
        let size = 8_000_000
        let source = try randomFile(files, "video.mp4", bytes: size)
        let state = files.path + "/state"
        let server = try UploadTestServer.tus(in: namespaces.server, address: RoutedNamespaces.serverAddress, rate: 2_000_000)
        defer { server.stop() }

        let upload = try ReachStream(
            ["upload", "--json", "--no-cellular", "--settle", "0.2"] + RoutedNamespaces.overrides + ["--state-dir", state, source.path, server.url],
            in: ns)
        defer { upload.stop() }
        _ = try await upload.waitForLine { $0.contains("\"event\":\"progress\"") && !$0.contains("\"sent\":0}") }
        let location = try #require(try record(in: state)?["location"] as? String)
        try await server.waitForStoredBytes(location, atLeast: 1_000_000)

        // A cheaper route to the server through the "cellular" veth: the upload pauses.
        try namespaces.route(via: .cellular, metric: 10)
        let paused = try await upload.waitForLine { $0.contains("\"event\":\"paused\"") }
        #expect(paused.contains("\"reason\":\"cellularNotAllowed\""))
        let pausedAt = upload.received.count
        // tuspyserver must be done with the cut-off request before it can take the next one.
        let held = try await settledOffset(location, server: server, in: ns)
        #expect(held > 0 && held < Int64(size))

        try namespaces.removeRoute(via: .cellular, metric: 10)
        _ = try await upload.waitForLine(after: pausedAt) { $0.contains("\"event\":\"resumed\"") }
        let doneLine = try await upload.waitForLine(bound: .seconds(60)) { $0.contains("\"event\":\"done\"") }
        #expect(upload.waitForExit() == 0)
        let done = try json(doneLine)
        #expect(done["tus"] as? Bool == true)
        #expect(done["location"] as? String == location)
        // Every byte the server holds was sent once; only bytes cut off in flight went twice.
        let sent = try #require(done["sent"] as? Int)
        let resent = try #require(done["resent"] as? Int)
        #expect(sent - resent == size)
        // After the resume, progress continued from the server's offset. Progress lines come
        // once a second: when the rest is handed over within a second of the last one (the
        // server reads faster than it stores), the next line is `done`, which the checks above
        // and the stored file's hash cover.
        if let line = upload.received.dropFirst(pausedAt).first(where: { $0.contains("\"event\":\"progress\"") }) {
            #expect((try json(line)["bytes"] as? Int ?? 0) > Int(held))
        }
        #expect(try sha256(server.storedPath(location)) == source.sha256)
    }

    @Test(.enabled(if: TestNamespace.isSupported && serversReady))
    func putsToModDav() async throws {
        let ns = try await onlineNamespace()
        let files = try TemporaryDirectory()
        defer { files.remove() }
        let source = try randomFile(files, "photo.jpg", bytes: 3_000_000)
        let server = try UploadTestServer.dav(in: ns)
        defer { server.stop() }

        let plain = try reach(["upload", "--state-dir", files.path + "/state", source.path, server.url + "photo.jpg"], in: ns)
        #expect(plain.status == 0, "\(plain.stderr)")
        #expect(plain.stderr.contains("photo.jpg: done, 2.9 MiB, HTTP 201"))
        #expect(try sha256(server.directory + "/photo.jpg") == source.sha256)

        let again = try reach(["upload", "--json", "--state-dir", files.path + "/state", source.path, server.url + "photo.jpg"], in: ns)
        #expect(again.status == 0)
        let done = try json(try #require(again.stdout.split(separator: "\n").map(String.init).last))
        #expect(done["event"] as? String == "done")
        #expect(done["tus"] as? Bool == false)
        // Replacing an existing resource: 204.
        #expect(done["status"] as? Int == 204)
        #expect(done["sent"] as? Int == 3_000_000)
    }

    @Test(.enabled(if: TestNamespace.isSupported && serversReady))
    func aFormUploadWithCredentialsNeverPrintsThem() async throws {
        let ns = try await onlineNamespace()
        let files = try TemporaryDirectory()
        defer { files.remove() }
        let source = try randomFile(files, "notes.txt", bytes: 200_000)
        let server = try UploadTestServer.multipart(in: ns, credentials: "dave:hunter2")
        defer { server.stop() }
        let url = server.url.replacingOccurrences(of: "http://", with: "http://dave:hunter2@")

        let result = try reach(["upload", "--json", "--form", "files", source.path, url], in: ns)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!(result.stdout + result.stderr).contains("hunter2"))
        let done = try json(try #require(result.stdout.split(separator: "\n").map(String.init).last))
        #expect(done["url"] as? String == server.url.replacingOccurrences(of: "http://", with: "http://***@"))
        #expect(done["status"] as? Int == 204)
        #expect(try sha256(server.directory + "/notes.txt") == source.sha256)

        let wrong = try reach(["upload", "--form", "files", source.path, url.replacingOccurrences(of: "hunter2", with: "hunter3")], in: ns)
        #expect(wrong.status == 1)
        #expect(wrong.stderr.contains("answered HTTP 401"))
        #expect(!(wrong.stdout + wrong.stderr).contains("hunter3"))
    }

    @Test(.enabled(if: TestNamespace.isSupported && serversReady))
    func anUploadOverTheCellularLimitWaitsWithoutTraffic() async throws {
        let namespaces = try await RoutedNamespaces()
        let ns = namespaces.client
        try namespaces.route(via: .cellular, metric: 100)
        let files = try TemporaryDirectory()
        defer { files.remove() }
        let source = try randomFile(files, "clip.bin", bytes: 100_000)
        let server = try UploadTestServer.dav(in: namespaces.server, address: RoutedNamespaces.serverAddress)
        defer { server.stop() }
        let common = ["upload", "--json"] + RoutedNamespaces.overrides + ["--state-dir", files.path + "/state"]

        let waiting = try ReachStream(common + ["--max-cellular", "50KB", source.path, server.url + "clip.bin"], in: ns)
        defer { waiting.stop() }
        let line = try await waiting.waitForLine { $0.contains("\"event\":\"waiting\"") }
        #expect(line.contains("\"reason\":\"overCellularSizeLimit\""))
        waiting.stop()
        #expect(server.requests().isEmpty)

        let within = try reach(common + ["--max-cellular", "1MB", source.path, server.url + "clip.bin"], in: ns)
        #expect(within.status == 0, "\(within.stderr)")
        #expect(try sha256(server.directory + "/clip.bin") == source.sha256)
    }

    @Test(arguments: ["fifo", "/dev/null", "directory", "missing"])
    func aFileThatIsNotARegularFileExits64WithoutTraffic(_ kind: String) throws {
        let files = try TemporaryDirectory()
        defer { files.remove() }
        let path: String
        switch kind {
        case "fifo":
            path = files.path + "/pipe"
            #expect(mkfifo(path, 0o600) == 0)
        case "directory": path = files.path
        case "missing": path = files.path + "/none"
        default: path = kind
        }
        let listener = try Listener()
        let result = try reach(["upload", "--state-dir", files.path + "/state", path, "http://127.0.0.1:\(listener.port)/x"])
        #expect(result.status == 64)
        let expected = ["fifo": "is a FIFO", "/dev/null": "is a character device", "directory": "is a directory", "missing": "No such file"][kind]!
        #expect(result.stderr.contains(expected), "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1)
        #expect(!listener.connectionsWaiting)
    }

    @Test(arguments: [
        (["-H", "NoColon"], "-H: expected 'Name: value'"),
        (["-H", "Bad Name: v"], "-H: expected 'Name: value'"),
        (["-H", "Content-Length: 5"], "-H Content-Length: set by reach itself"),
        (["--max-cellular", "lots"], "--max-cellular: not a size: 'lots'"),
        (["--form", ""], "--form needs a field name"),
        (["--settle=-1"], "--settle must be a number of seconds"),
    ])
    func badOptionsExit64(_ options: [String], _ message: String) throws {
        let result = try reach(["upload"] + options + ["/etc/hostname", "http://127.0.0.1:9/x"])
        #expect(result.status == 64)
        #expect(result.stderr.contains(message), "\(result.stderr)")
    }

    @Test(arguments: [
        ("ftp://user:pw1@example.invalid/x", "not an http:// or https:// URL: 'ftp://***@example.invalid/x'"),
        ("http://user:pw1@127.0.0.1:99999/x", "not a valid port in 'http://***@127.0.0.1:99999/x'"),
    ])
    func badURLsExit64WithoutShowingCredentials(_ url: String, _ message: String) throws {
        let result = try reach(["upload", "/etc/hostname", url])
        #expect(result.status == 64)
        #expect(result.stderr.contains(message), "\(result.stderr)")
        #expect(!result.stderr.contains("pw1"))
    }
}

/// A TCP listener on 127.0.0.1 that accepts nothing, to prove no connection was made.
private final class Listener {
    let port: Int
    private let descriptor: Int32

    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ok = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw in
                bind(fd, raw, length) == 0 && listen(fd, 8) == 0 && getsockname(fd, raw, &length) == 0
            }
        }
        guard ok else {
            close(fd)
            throw TestNamespaceError(message: "cannot listen on 127.0.0.1")
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        descriptor = fd
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
    }

    var connectionsWaiting: Bool {
        let client = accept(descriptor, nil, nil)
        guard client >= 0 else { return false }
        close(client)
        return true
    }

    deinit { close(descriptor) }
}
