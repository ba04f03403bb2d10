import Foundation
import Reachability
import ReachabilityCore
import ReachabilityMetrics
import Testing

/// Metrics with every family populated, the awkward label values included.
enum PromtoolInput {
    static func busyMetrics() -> ReachMetrics {
        let metrics = ReachMetrics(monitorStatistics: { MonitorStatistics(overflows: 3, counterDumps: 7) })
        metrics.setBudgets([("sim", 1_500, 2_000, "warning", 1_796_083_200), ("forever", 0, 10, "ok", nil)])
        metrics.observe(PathFixtures.wifi)
        metrics.observe(PathFixtures.cellular)
        metrics.setJobCounts(["pending": 4, "running": 2, "paused": 1])
        metrics.addTransferredBytes(123_456, direction: "download", networkType: "cellular")
        metrics.addTransferredBytes(42, direction: "upload", networkType: "wifi")
        metrics.addPausedSeconds(12.5, reason: "expensive")
        metrics.addPausedSeconds(3, reason: #"rule "metered\roaming""# + "\nsecond line")
        return metrics
    }
}

/// promtool (Debian's `prometheus` package; scripts/test.sh installs it). Under CI=true a
/// missing promtool fails the test instead of skipping it.
enum Promtool {
    static let path: String? = {
        let directories = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init) + ["/usr/bin"]
        return directories.map { $0 + "/promtool" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }()

    static var shouldRun: Bool { ProcessInfo.processInfo.environment["CI"] == "true" || path != nil }

    /// `promtool check metrics` on `text` (stdin): its exit status and all it printed.
    static func checkMetrics(_ text: String) throws -> (status: Int32, output: String) {
        let promtool = try #require(path, "promtool is not installed (apt-get install prometheus)")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: promtool)
        process.arguments = ["check", "metrics"]
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = output
        try process.run()
        // promtool reads all of stdin before it writes, so writing first cannot deadlock.
        input.fileHandleForWriting.write(Data(text.utf8))
        try input.fileHandleForWriting.close()
        let printed = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: printed, as: UTF8.self))
    }
}

@Suite("promtool", .enabled(if: Promtool.shouldRun))
struct PromtoolTests {
    /// A registry as the daemon starts with it, and one with every family populated.
    enum Fixture: String, CaseIterable, Sendable {
        case fresh, busy

        func metrics() -> ReachMetrics {
            switch self {
            case .fresh: ReachMetrics()
            case .busy: PromtoolInput.busyMetrics()
            }
        }
    }

    /// Lint problems (a counter without `_total`, a missing HELP) are printed with a non-zero
    /// status; any output at all counts as a failure.
    @Test(arguments: Fixture.allCases)
    func checkMetricsFindsNoProblem(_ fixture: Fixture) throws {
        let text = fixture.metrics().render()
        let result = try Promtool.checkMetrics(text)
        #expect(result.status == 0, "\(result.output)\n\(text)")
        #expect(result.output.isEmpty, "\(result.output)")
    }

    /// The check is not vacuous: promtool does object to a counter without `_total`.
    @Test func checkMetricsReportsALintProblem() throws {
        let result = try Promtool.checkMetrics("# HELP reach_bad A counter.\n# TYPE reach_bad counter\nreach_bad 1\n")
        #expect(result.status != 0)
        #expect(result.output.contains("_total"))
    }
}
