import Foundation

/// Runs a command to its end and returns its exit status and standard output (stderr is
/// appended to the output, for messages).
func runCommand(_ arguments: [String]) async throws -> (status: Int32, output: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = arguments
    let output = Pipe()
    process.standardOutput = output
    process.standardError = output
    process.standardInput = FileHandle.nullDevice
    let exited = Mailbox<Int32>()
    process.terminationHandler = { exited.put($0.terminationStatus) }
    try process.run()
    // Read to the end before waiting: a command that fills the pipe would otherwise never exit.
    let data = try await onOwnThread { output.fileHandleForReading.readDataToEndOfFile() }
    guard let status = await exited.take() else { throw TestFailure("cancelled waiting for \(arguments[0])") }
    return (status, String(decoding: data, as: UTF8.self))
}

/// Whether tests that need something of the machine must fail instead of being skipped.
let isCI = ProcessInfo.processInfo.environment["CI"] == "true"
