import FoundationEssentials
import ReachabilityCore

/// tinyproxy (Debian), an HTTP proxy for a test, on 127.0.0.1 inside a ``TestNamespace`` when
/// given, with a configuration of its own; ``requests()`` lists what it forwarded.
public final class ProxyTestServer: Sendable {
    /// The proxy's URL: `http://127.0.0.1:PORT`.
    public let url: String
    private let scratch: String
    private let process: SpawnedProcess

    /// Whether tinyproxy is installed.
    public static var isAvailable: Bool { FileManager.default.isExecutableFile(atPath: "/usr/bin/tinyproxy") }

    private init(url: String, scratch: String, process: SpawnedProcess) {
        self.url = url
        self.scratch = scratch
        self.process = process
    }

    /// Starts tinyproxy on a free port (a few tries: the port is picked before it binds).
    public static func start(in namespace: TestNamespace? = nil) throws -> ProxyTestServer {
        guard isAvailable else { throw UploadTestServer.missing("tinyproxy (run scripts/setup.sh tinyproxy)") }
        var lastError: (any Error)?
        for _ in 0..<3 {
            let scratch = try UploadTestServer.makeScratch("proxy")
            let port = namespace == nil ? UploadTestServer.freePort() : Int.random(in: 20000...40000)
            let configuration = """
                Port \(port)
                Listen 127.0.0.1
                Timeout 30
                Allow 127.0.0.1
                LogLevel Info
                MaxClients 20

                """
            do {
                try configuration.write(toFile: scratch + "/tinyproxy.conf", atomically: false, encoding: .utf8)
                let (process, _) = try UploadTestServer.launch(
                    ["/usr/bin/tinyproxy", "-d", "-c", scratch + "/tinyproxy.conf"], in: namespace, scratch: scratch
                ) { $0.contains("Accepting connections") }
                return ProxyTestServer(url: "http://127.0.0.1:\(port)", scratch: scratch, process: process)
            } catch {
                lastError = error
            }
        }
        throw lastError ?? UploadTestServer.missing("tinyproxy")
    }

    /// The request lines the proxy received (`GET http://… HTTP/1.1`), in order.
    public func requests() -> [String] {
        let log = (try? String(contentsOfFile: scratch + "/output.log", encoding: .utf8)) ?? ""
        return log.split(separator: "\n").compactMap { line in
            guard let range = line.firstRange(of: "]: Request (file descriptor ") else { return nil }
            return line[range.upperBound...].split(separator: ":", maxSplits: 1).last.map { String($0.trimmingBlanks()) }
        }
    }

    /// Ends tinyproxy and removes its directory.
    public func stop() {
        process.stop()
        try? FileManager.default.removeItem(atPath: scratch)
    }
}
