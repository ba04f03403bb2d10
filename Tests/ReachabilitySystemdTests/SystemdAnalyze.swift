import Foundation

/// `systemd-analyze verify` on copies of the unit files in dist/systemd.
///
/// verify checks that every ExecStart= binary exists, and /usr/local/bin/reach is not
/// installed here, so the copies start /bin/true instead: this test target does not build
/// `reach`, and the check is only that the path is an executable file.
struct SystemdAnalyze {
    static let executable = "/usr/bin/systemd-analyze"
    static let installedReach = "/usr/local/bin/reach"
    static let standIn = "/bin/true"

    /// Whether the tests run: when systemd-analyze is installed, and always under `CI=true`,
    /// where a missing one fails them.
    static var isRequired: Bool {
        ProcessInfo.processInfo.environment["CI"] == "true" || FileManager.default.isExecutableFile(atPath: executable)
    }

    /// dist/systemd in the source tree, found from this file's path.
    static let unitDirectory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("dist/systemd").path

    struct Result {
        var status: Int32
        var output: String
        var errors: String

        /// stderr lines that name one of `units` or a path under `directory`.
        func complaints(about units: [String], in directory: String) -> [String] {
            errors.split(separator: "\n").map(String.init).filter { line in
                line.contains(directory) || units.contains { line.contains($0) }
            }
        }
    }

    /// Reads `relativePath` from dist/systemd with its ExecStart= rewritten to ``standIn``;
    /// throws unless it started the installed `reach`.
    static func standInCopy(of relativePath: String) throws -> String {
        let text = try String(contentsOfFile: unitDirectory + "/" + relativePath, encoding: .utf8)
        let original = "ExecStart=\(installedReach) "
        guard text.contains(original) else { throw AnalyzeError("\(relativePath) does not run \(installedReach)") }
        return text.replacingOccurrences(of: original, with: "ExecStart=\(standIn) ")
    }

    /// Runs systemd-analyze with `arguments` and `environment` added to this process's.
    static func run(_ arguments: [String], environment: [String: String] = [:], scratch: String) throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        // Files rather than pipes: nothing to drain while it runs.
        let outputPath = scratch + "/analyze.out"
        let errorsPath = scratch + "/analyze.err"
        for path in [outputPath, errorsPath] where !FileManager.default.createFile(atPath: path, contents: nil) {
            throw AnalyzeError("cannot create \(path)")
        }
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: outputPath))
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errorsPath))
        process.standardInput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return Result(
            status: process.terminationStatus,
            output: try String(contentsOfFile: outputPath, encoding: .utf8),
            errors: try String(contentsOfFile: errorsPath, encoding: .utf8))
    }
}

struct AnalyzeError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
