import Foundation
import Glibc
import ReachabilityLinux
import ReachabilityTestKit
import Synchronization

/// The test HTTP server built beside `reach`.
let testServerBinary: String = URL(fileURLWithPath: reachBinary).deletingLastPathComponent().appendingPathComponent("reach-testserver").path

/// The built `reach` binary, beside the test bundle in the build directory.
let reachBinary: String = {
    let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    var directory = URL(fileURLWithPath: executable).deletingLastPathComponent()
    // The test runner may live inside a `.xctest` directory.
    while directory.path != "/" && !FileManager.default.isExecutableFile(atPath: directory.appendingPathComponent("reach").path) {
        directory.deleteLastPathComponent()
    }
    return directory.appendingPathComponent("reach").path
}()

struct ReachResult {
    var status: Int32
    var stdout: String
    var stderr: String
}

/// Runs `reach ARGS…` (inside `namespace` when given, with `environment` added) to completion.
func reach(_ arguments: [String], in namespace: TestNamespace? = nil, environment: [String: String] = [:]) throws -> ReachResult {
    let command = [reachBinary] + arguments
    let settings = environment.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
    return try runToCompletion("/usr/bin/env", settings + (namespace.map { ["nsenter", "--net=\($0.namespace.path)"] + command } ?? command))
}

/// Runs `bash -c SCRIPT` to completion: for redirections (`> /dev/full`) and pipelines.
func shell(_ script: String) throws -> ReachResult {
    try runToCompletion("/bin/bash", ["-c", script])
}

private func runToCompletion(_ executable: String, _ arguments: [String]) throws -> ReachResult {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    let out = Pipe()
    let err = Pipe()
    process.standardOutput = out
    process.standardError = err
    process.standardInput = FileHandle.nullDevice
    try process.run()
    let stdout = out.fileHandleForReading.readDataToEndOfFile()
    let stderr = err.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return ReachResult(
        status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self), stderr: String(decoding: stderr, as: UTF8.self))
}

/// A long-running `reach` (watch) whose stdout lines are collected as they arrive.
final class ReachStream {
    private let process: Process
    /// The process's pid (after `exec`s, the program's own).
    var pid: Int32 { process.processIdentifier }
    private final class LineBuffer: Sendable {
        let lines = Mutex<[String]>([])
    }

    private let buffer = LineBuffer()
    private let reader: Thread

    init(_ arguments: [String], in namespace: TestNamespace?, binary: String = reachBinary) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = (namespace.map { ["nsenter", "--net=\($0.namespace.path)"] } ?? []) + [binary] + arguments
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        self.process = process
        let handle = out.fileHandleForReading
        reader = Thread { [buffer] in
            var pending = Data()
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty { return }
                pending.append(chunk)
                while let newline = pending.firstIndex(of: 0x0A) {
                    let line = String(decoding: pending[pending.startIndex..<newline], as: UTF8.self)
                    pending.removeSubrange(pending.startIndex...newline)
                    buffer.lines.withLock { $0.append(line) }
                }
            }
        }
        reader.start()
    }

    var received: [String] { buffer.lines.withLock { $0 } }

    /// Waits for a line after the first `after` ones that satisfies `predicate`.
    func waitForLine(after: Int = 0, bound: Duration = .seconds(60), _ predicate: (String) -> Bool) async throws -> String {
        let deadline = ContinuousClock.now + bound
        while ContinuousClock.now < deadline {
            if let line = received.dropFirst(after).first(where: predicate) { return line }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw TestNamespaceError(message: "no matching line; received: \(received)")
    }

    func stop() {
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
    }

    /// Ends it with SIGKILL, as a crash or the OOM killer would.
    func kill() {
        if process.isRunning { _ = Glibc.kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    /// Waits for it to exit by itself; returns its status.
    func waitForExit() -> Int32 {
        process.waitUntilExit()
        return process.terminationStatus
    }
}

// `@unchecked`: `process` and `reader` are set once in `init`; lines are behind a Mutex.
extension ReachStream: @unchecked Sendable {}
