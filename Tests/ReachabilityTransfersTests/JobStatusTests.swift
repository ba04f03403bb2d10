import Foundation
import ReachabilityCore
import ReachabilityTransfers
import Testing

@Suite("Job states in DownloadManager's words")
struct JobStatusTests {
    /// Engine states in DownloadManager's words, with the predicate that fails.
    @Test(arguments: [
        (JobState.queued, TransferPolicy.any, "pending", nil),
        (.running, .any, "running", nil),
        (.waiting(.noNetwork), .any, "paused", "waitingForNetwork"),
        (.waiting(.cellularNotAllowed), .unmetered, "paused", "queuedForUnmetered"),
        (.waiting(.expensiveNotAllowed), .unmetered, "paused", "queuedForUnmetered"),
        (.waiting(.typeNotAllowed(.cellular)), .wifiOnly, "paused", "queuedForWifi"),
        (.waiting(.typeNotAllowed(.wifi)), .wiredOnly, "paused", "queuedForWired"),
        (.waiting(.overCellularSizeLimit(limit: 1000)), .any, "paused", "overCellularLimit"),
        (.waiting(.settling(remaining: .seconds(3))), .any, "paused", "settling"),
        (.waiting(.captivePortal(url: "http://10.9.0.2/login")), .any, "paused", "captivePortal"),
        (.waiting(.noInternet), .unmetered, "paused", "waitingForInternet"),
        (.waiting(.checkingInternet), .any, "paused", "checkingInternet"),
        (.paused(.byUser), .any, "paused", "pausedByUser"),
        (.paused(.retrying(after: .seconds(30), cause: "HTTP 503")), .any, "paused", "waitingToRetry"),
        (.succeeded, .any, "succeeded", nil),
        (.failed(TransferError(.httpStatus(404), url: "http://x/")), .any, "failed", "httpStatus(404)"),
        (.cancelled, .any, "cancelled", nil),
    ] as [(JobState, TransferPolicy, String, String?)])
    func engineStatesMapToStatuses(state: JobState, policy: TransferPolicy, expected: String, code: String?) {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let (status, reason) = state.status(under: policy, now: now)
        #expect(status.rawValue == expected)
        #expect(reason?.code == code)
        if code == "waitingToRetry" { #expect(reason?.until == now.addingTimeInterval(30)) }
    }


    /// Many jobs asking at once get the same words, and a different policy its own.
    @Test func theLastWaitingAnswerIsReusedOnlyForTheSameReasonAndPolicy() {
        let now = Date()
        let wired = JobState.waiting(.typeNotAllowed(.cellular)).status(under: .wiredOnly, now: now).1
        let wifi = JobState.waiting(.typeNotAllowed(.cellular)).status(under: .wifiOnly, now: now).1
        let movedOn = JobState.waiting(.typeNotAllowed(.wifi)).status(under: .wiredOnly, now: now).1
        #expect(wired?.code == "queuedForWired")
        #expect(wifi?.code == "queuedForWifi")
        #expect(movedOn?.code == "queuedForWired")
        #expect(movedOn?.message != wired?.message)
        #expect(JobState.waiting(.typeNotAllowed(.cellular)).status(under: .wiredOnly, now: now).1 == wired)
    }
}

extension JobState {
    /// The status token tests compare sequences by.
    var statusToken: String { status(under: .any, now: Date()).0.rawValue }
}
