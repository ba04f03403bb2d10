import FoundationEssentials
import ReachabilityCore

#if canImport(Glibc)
import Glibc
#endif

/// A real Prometheus server (Debian's `prometheus` package) for an end-to-end test: it scrapes
/// one target every second, on 127.0.0.1, with its configuration and its TSDB in a scratch
/// directory of its own that ``stop()`` removes.
///
/// ```swift
/// try await PrometheusServer.with(scraping: "127.0.0.1:\(port)") { prometheus in
///     let samples = try await prometheus.waitForResult("reach_path_status == 1")
/// }
/// ```
public final class PrometheusServer: Sendable {
    /// The port of its web API on 127.0.0.1.
    public let port: Int
    private let scratch: String
    private let process: SpawnedProcess

    /// Whether `prometheus` is installed.
    public static var isAvailable: Bool { FileManager.default.isExecutableFile(atPath: executable) }
    private static let executable = "/usr/bin/prometheus"

    private init(port: Int, scratch: String, process: SpawnedProcess) {
        self.port = port
        self.scratch = scratch
        self.process = process
    }

    /// Starts Prometheus scraping `target` (`host:port`) at `metricsPath` every second, and
    /// returns once it is ready (a few tries: its port is picked before it binds).
    public static func start(scraping target: String, metricsPath: String = "/metrics") throws -> PrometheusServer {
        guard isAvailable else { throw UploadTestServer.missing("prometheus (run scripts/setup.sh prometheus)") }
        var lastError: (any Error)?
        for _ in 0..<3 {
            let scratch = try UploadTestServer.makeScratch("prometheus")
            let port = UploadTestServer.freePort()
            do {
                try configuration(target: target, metricsPath: metricsPath).write(
                    toFile: scratch + "/prometheus.yml", atomically: false, encoding: .utf8)
                let arguments = [
                    executable, "--config.file=\(scratch)/prometheus.yml", "--storage.tsdb.path=\(scratch)/data",
                    "--web.listen-address=127.0.0.1:\(port)",
                ]
                let (process, _) = try UploadTestServer.launch(arguments, in: nil, scratch: scratch) {
                    $0.contains("Server is ready to receive web requests")
                }
                return PrometheusServer(port: port, scratch: scratch, process: process)
            } catch {
                lastError = error
            }
        }
        throw lastError ?? UploadTestServer.missing("prometheus")
    }

    /// Runs `body` with a server scraping `target`, and stops the server however `body` ends.
    public static func with<T>(
        scraping target: String, metricsPath: String = "/metrics", _ body: (PrometheusServer) async throws -> T
    ) async throws -> T {
        let server = try start(scraping: target, metricsPath: metricsPath)
        defer { server.stop() }
        return try await body(server)
    }

    private static func configuration(target: String, metricsPath: String) -> String {
        """
        global:
          scrape_interval: 1s
          scrape_timeout: 1s
          evaluation_interval: 1s
        scrape_configs:
          - job_name: reach
            metrics_path: \(metricsPath)
            static_configs:
              - targets: ['\(target)']

        """
    }

    /// The instant vector `promql` evaluates to now (`/api/v1/query`); empty while nothing
    /// scraped matches.
    public func query(_ promql: String) throws -> [PrometheusSample] {
        // Every byte but ASCII letters and digits escaped: `+` in a query value is a space to Go.
        let encoded = promql.utf8.map { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                String(Unicode.Scalar(byte))
            default: "%" + ASCIIHex.lowercase([byte])
            }
        }.joined()
        let data = try get("/api/v1/query?query=\(encoded)")
        return try PrometheusSample.vector(from: data)
    }

    /// Queries `promql` until its result is not empty (Prometheus scrapes every second), for
    /// at most `timeout`; the error then says what Prometheus thought of the target.
    public func waitForResult(_ promql: String, timeout: Duration = .seconds(30)) async throws -> [PrometheusSample] {
        let deadline = ContinuousClock.now + timeout
        var lastError: (any Error)?
        while ContinuousClock.now < deadline {
            do {
                let samples = try query(promql)
                if !samples.isEmpty { return samples }
            } catch {
                lastError = error
            }
            try await Task.sleep(for: .milliseconds(200))
        }
        let targets = (try? get("/api/v1/targets")).map { String(decoding: $0, as: UTF8.self) } ?? "-"
        let last = lastError.map { "\($0)" } ?? "none"
        throw TestNamespaceError(message: "no result for \(promql) in \(timeout) (last error: \(last)); targets: \(targets)")
    }

    /// Prometheus's own output, for failure messages.
    public var log: String { (try? String(contentsOfFile: scratch + "/output.log", encoding: .utf8)) ?? "" }

    /// Ends Prometheus (SIGTERM, SIGKILL after 5 s) and removes its directory. Idempotent.
    public func stop() {
        process.stop()
        try? FileManager.default.removeItem(atPath: scratch)
    }

    /// The body of `GET path` on the server; throws unless the status is 200.
    private func get(_ path: String) throws -> Data {
        let response = try LoopbackHTTP.get(port: port, path: path)
        guard response.status == 200 else {
            throw TestNamespaceError(message: "GET \(path): \(response.status) \(String(decoding: response.body, as: UTF8.self))")
        }
        return response.body
    }
}

/// One element of an instant vector: the series' labels (`__name__` included) and its value
/// as Prometheus writes it (`"1"`, `"1024"`, `"NaN"`).
public struct PrometheusSample: Sendable, Hashable {
    /// The series' labels.
    public var labels: [String: String]
    /// The value, as text.
    public var value: String

    /// The query API's answer; a sample's value is `[time, "text"]`.
    private struct QueryAnswer: Decodable {
        struct Payload: Decodable { var result: [Element] }
        struct Element: Decodable {
            var metric: [String: String]
            var value: [TimeOrText]
        }
        enum TimeOrText: Decodable {
            case time(Double)
            case text(String)
            init(from decoder: any Decoder) throws {
                let container = try decoder.singleValueContainer()
                if let text = try? container.decode(String.self) { self = .text(text) } else { self = .time(try container.decode(Double.self)) }
            }
        }
        var status: String
        var data: Payload
    }

    /// `{"status":"success","data":{"resultType":"vector","result":[{"metric":{…},"value":[t,"v"]}]}}`
    static func vector(from data: Data) throws -> [PrometheusSample] {
        guard let answer = try? JSONDecoder().decode(QueryAnswer.self, from: data), answer.status == "success" else {
            throw TestNamespaceError(message: "unexpected query answer: \(String(decoding: data, as: UTF8.self))")
        }
        return answer.data.result.compactMap { element in
            guard element.value.count == 2, case .text(let value) = element.value[1] else { return nil }
            return PrometheusSample(labels: element.metric, value: value)
        }
    }
}

/// HTTP/1.0 `GET` on 127.0.0.1 over a plain socket (the test kit has no HTTP client, and
/// FoundationNetworking would bring libcurl): the server closes the connection after the
/// response, so the body is what follows the headers.
enum LoopbackHTTP {
    static func get(port: Int, path: String, timeoutSeconds: Int = 5) throws -> (status: Int, body: Data) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw TestNamespaceError(message: "socket: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw TestNamespaceError(message: "connect 127.0.0.1:\(port): \(String(cString: strerror(errno)))") }
        let request = Array("GET \(path) HTTP/1.0\r\nHost: 127.0.0.1:\(port)\r\n\r\n".utf8)
        guard request.withUnsafeBytes({ send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == request.count else {
            throw TestNamespaceError(message: "send to 127.0.0.1:\(port): \(String(cString: strerror(errno)))")
        }
        var response = Data()
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count == 0 { break }
            guard count > 0 else { throw TestNamespaceError(message: "recv from 127.0.0.1:\(port): \(String(cString: strerror(errno)))") }
            response.append(contentsOf: chunk[..<count])
        }
        return try parse(response)
    }

    private static func parse(_ response: Data) throws -> (status: Int, body: Data) {
        let separator = Data("\r\n\r\n".utf8)
        guard let end = response.firstRange(of: separator) else { throw TestNamespaceError(message: "incomplete HTTP response") }
        let head = String(decoding: response[..<end.lowerBound], as: UTF8.self)
        let statusLine = head.split(separator: "\r\n").first.map(String.init) ?? ""
        guard let status = statusLine.split(separator: " ").dropFirst().first.flatMap({ Int($0) }) else {
            throw TestNamespaceError(message: "bad status line: \(statusLine)")
        }
        return (status, Data(response[end.upperBound...]))
    }
}
