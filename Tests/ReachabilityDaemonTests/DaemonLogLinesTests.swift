import Foundation
import Logging
@testable import ReachabilityDaemon
import ReachabilityTransfers
import Testing

/// Which job and path moves the daemon logs, at which level, in which words.
@Suite("Daemon log lines")
struct DaemonLogLinesTests {
    private static func job(_ state: JobStatus, _ reason: JobReason? = nil, network: String? = nil) -> QueueJob {
        var job = QueueJob(
            id: 7, spec: QueueJobSpec(kind: .download), state: state, reason: reason, network: network, attempts: 2,
            createdAt: Date(timeIntervalSince1970: 0), updatedAt: Date(timeIntervalSince1970: 0))
        job.progress.transferredBytes = 1500
        return job
    }

    private static let notFound = JobReason(code: "httpStatus(404)", message: "http://host/f.bin answered HTTP 404")
    private static let retry = JobReason(code: "waitingToRetry", message: "retrying in 0.4 s after: connection refused")
    private static let wifi = JobReason(code: "queuedForWifi", message: "queued for Wi-Fi")

    static let rows: [(QueueJob, JobStatus, String?, Logger.Level?, String?)] = [
        (job(.failed, notFound), .running, nil, .warning, "job 7 (download) failed: http://host/f.bin answered HTTP 404 [httpStatus(404)]"),
        (job(.paused, retry), .running, nil, .info, "job 7 (download) retrying: retrying in 0.4 s after: connection refused [waitingToRetry]"),
        (job(.succeeded), .running, nil, .info, "job 7 (download) succeeded after 2 attempt(s), 1500 B moved"),
        (job(.paused, wifi), .running, nil, .debug, "job 7 (download) paused: queued for Wi-Fi [queuedForWifi]"),
        (job(.running, network: "wifi via wlan0"), .paused, "queuedForWifi", .debug, "job 7 (download) running on wifi via wlan0"),
        // Only the reason moved: still a line.
        (job(.paused, retry), .paused, "queuedForWifi", .info, "job 7 (download) retrying: retrying in 0.4 s after: connection refused [waitingToRetry]"),
        // Nothing moved: no line.
        (job(.paused, wifi), .paused, "queuedForWifi", nil, nil),
        (job(.running), .running, nil, nil, nil),
    ]

    @Test(arguments: rows)
    func jobMovesAreLoggedAtTheirLevel(_ job: QueueJob, _ previous: JobStatus, _ previousCode: String?, _ level: Logger.Level?, _ text: String?) {
        let line = DaemonLogLines.job(job, from: previous, previousCode: previousCode)
        #expect(line?.level == level)
        #expect(line?.text == text)
    }

    @Test func aPathIsLoggedOnlyWhenItsWordsChange() {
        #expect(DaemonLogLines.path("wifi via wlan0, unmetered", previous: nil)?.text == "path: wifi via wlan0, unmetered")
        #expect(DaemonLogLines.path("wifi via wlan0, unmetered", previous: nil)?.level == .info)
        #expect(DaemonLogLines.path("wifi via wlan0, unmetered", previous: "wifi via wlan0, unmetered") == nil)
        #expect(DaemonLogLines.path("cellular via wwan0, expensive", previous: "wifi via wlan0, unmetered")?.text == "path: cellular via wwan0, expensive")
    }
}
