import Foundation
import Glibc

/// python3's `http.server` on 127.0.0.1 serving a directory that holds one file, `metrics`:
/// a stand-in for the daemon's endpoint, to test ``PrometheusServer`` before
/// `reach daemon --metrics-listen` exists. ``publish(_:)`` replaces what the next scrape reads.
final class MetricsFileServer {
    let port: Int
    private let scratch: String
    private let process: Process

    init() throws {
        scratch = FileManager.default.temporaryDirectory.appendingPathComponent("reach-metrics-\(UUID().uuidString)").path
        let served = scratch + "/served"
        try FileManager.default.createDirectory(atPath: served, withIntermediateDirectories: true)
        let log = scratch + "/server.log"
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-u", "-m", "http.server", "0", "--bind", "127.0.0.1", "--directory", served]
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
        process.standardError = FileHandle.nullDevice
        try process.run()
        do {
            port = try Self.waitForPort(log: log, process: process)
        } catch {
            Self.end(process, scratch: scratch)
            throw error
        }
    }

    /// "Serving HTTP on 127.0.0.1 port 41234 (http://127.0.0.1:41234/) ..."
    private static func waitForPort(log: String, process: Process) throws -> Int {
        for _ in 0..<500 where process.isRunning {
            let output = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            let words = output.split(separator: " ")
            if let index = words.firstIndex(of: "port"), index + 1 < words.count, let port = Int(words[index + 1]) { return port }
            usleep(20_000)
        }
        throw MetricsFileServerError(message: "python3 -m http.server did not start")
    }

    /// Replaces the served text, atomically (a scrape never reads half a file).
    func publish(_ text: String) throws {
        // Written beside it and renamed in: Foundation's own atomic write leaves a
        // /tmp/TemporaryDirectory.* behind on every call.
        let path = scratch + "/served/metrics"
        try text.write(toFile: path + ".new", atomically: false, encoding: .utf8)
        guard rename(path + ".new", path) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    }

    func stop() { Self.end(process, scratch: scratch) }

    /// SIGKILL: the test runner blocks SIGTERM and its children inherit the mask.
    private static func end(_ process: Process, scratch: String) {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(atPath: scratch)
    }

    deinit { stop() }
}

struct MetricsFileServerError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}
