import Foundation
import ReachabilityTransfers
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// nginx on 127.0.0.1 (single process, as root it keeps root's rights over the scratch root)
/// with `limit_rate` per request and an access log of each request's range, status, body bytes
/// and times. Started by the test under a shell that ends it (with `SIGKILL`: nginx inherits the
/// test process's blocked signals, `SIGTERM` among them) once ``stop()`` asks or the test
/// process is gone, however it died.
final class NginxServer {
    static let binary = "/usr/sbin/nginx"
    /// Under `CI=true` the test runs regardless (`scripts/test.sh` installs nginx-light).
    static let isAvailable = requiredUnderCI(FileManager.default.isExecutableFile(atPath: binary))

    let base: String
    let root: String
    let port: Int
    private let process: Process

    /// One line of the access log.
    struct Logged {
        var began: Int64
        var ended: Int64
        var status: Int
        var range: String?
        var bytes: Int64
    }

    init(limitRate: String) throws {
        var template = Array("/tmp/reach-nginx-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw TestFailure("mkdtemp failed") }
        base = String(cString: made)
        root = base + "/www"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: base + "/tmp", withIntermediateDirectories: true)
        port = try freePort()
        let temp = base + "/tmp"
        let configuration = """
            daemon off; master_process off; worker_processes 1; pid \(base)/nginx.pid; error_log \(base)/error.log;
            events { worker_connections 64; }
            http { log_format segments '$msec $request_time $status "$http_range" $body_bytes_sent';
              access_log \(base)/access.log segments; sendfile on;
              client_body_temp_path \(temp); proxy_temp_path \(temp); fastcgi_temp_path \(temp); uwsgi_temp_path \(temp); scgi_temp_path \(temp);
              server { listen 127.0.0.1:\(port); root \(root); limit_rate \(limitRate); } }
            """
        try configuration.write(toFile: base + "/nginx.conf", atomically: false, encoding: .utf8)
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        let watch = "\"$0\" -c \"$1\" -p \"$2\" & pid=$!; "
            + "while kill -0 \"$3\" 2>/dev/null && kill -0 $pid 2>/dev/null && [ ! -e \"$2/stop\" ]; do sleep 0.1; done; kill -KILL $pid; wait $pid"
        process.arguments = ["-c", watch, Self.binary, base + "/nginx.conf", base, String(getpid())]
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        for _ in 0..<200 {
            if Self.accepts(port) { return }
            usleep(10_000)
        }
        stop()
        throw TestFailure("nginx did not listen on 127.0.0.1:\(port)")
    }

    private static func accepts(_ port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }

    func url(_ name: String) -> String { "http://127.0.0.1:\(port)/\(name)" }

    func stop() {
        _ = FileManager.default.createFile(atPath: base + "/stop", contents: nil)
        if process.isRunning { process.waitUntilExit() }
        try? FileManager.default.removeItem(atPath: base)
    }

    /// The access log: `$msec` is when the response ended, `$request_time` how long it took.
    func requests() throws -> [Logged] {
        let text = (try? String(contentsOfFile: base + "/access.log", encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ")
            guard fields.count == 5, let ended = Double(fields[0]), let took = Double(fields[1]), let status = Int(fields[2]),
                let bytes = Int64(fields[4])
            else { return nil }
            let range = fields[3].trimmingCharacters(in: CharacterSet(charactersIn: "\""))
            return Logged(
                began: Int64((ended - took) * 1e6), ended: Int64(ended * 1e6), status: status, range: range == "-" ? nil : range, bytes: bytes)
        }
    }
}

@Suite("Segmented downloads from nginx", .enabled(if: NginxServer.isAvailable, "needs nginx (scripts/setup.sh nginx-light)"))
struct NginxSegmentTests {
    @Test("four connections to nginx with a per-request rate limit: identical file, four ranges at once")
    func fourConnections() async throws {
        let nginx = try NginxServer(limitRate: "1m")
        defer { nginx.stop() }
        let size = 16 << 20
        let bytes = pattern(size: size, seed: 61)
        try Data(bytes).write(to: URL(fileURLWithPath: nginx.root + "/big.bin"))
        let expected = try sha256sum(nginx.root + "/big.bin")
        let destination = nginx.base + "/big.out"
        let downloader = Downloader(proxies: .none)
        defer { downloader.shutdown() }

        let result = try await downloader.download(
            DownloadRequest(url: nginx.url("big.bin"), destination: destination, expectedSHA256: expected, connections: 4))
        #expect(result.sha256 == expected)
        #expect(try sha256sum(destination) == expected)
        #expect(result.bytesDownloadedTotal == Int64(size))

        var logged = try nginx.requests()
        for _ in 0..<100 where logged.map(\.bytes).reduce(0, +) < Int64(size) {
            try await Task.sleep(for: .milliseconds(20))
            logged = try nginx.requests()
        }
        #expect(logged.allSatisfy { $0.status == 206 && $0.range?.hasPrefix("bytes=") == true })
        #expect(logged.map(\.bytes).reduce(0, +) == Int64(size))
        #expect(logged.first { $0.range == "bytes=0-4194303" } != nil)
        // The log has millisecond times: trim each request by 5 ms so that one ending and the
        // next starting on the same connection in the same millisecond do not count as overlap.
        let trimmed = logged.map { LoggedRequest(method: "GET", path: "", query: "", status: $0.status, bytes: $0.bytes, outcome: "", began: $0.began + 5000, ended: $0.ended - 5000) }
        #expect(maximumOverlap(trimmed) == 4)
    }
}
