public import Foundation
import ReachabilityCore
import ReachabilityTransfers
import Synchronization

/// How an engine state reads in the queue: DownloadManager's statuses and reasons. Pure, so it
/// is tested with a table.
enum QueueStatus {
    /// The queue's state and reason for the engine's `state` of a job under `policy`, at `now`.
    static func from(_ state: JobState, policy: TransferPolicy, now: Date) -> (QueueJobState, QueueReason?) {
        switch state {
        case .queued:
            return (.pending, nil)
        case .running:
            return (.running, nil)
        case .waiting(let reason):
            return (.paused, waiting(reason, policy: policy))
        case .paused(let reason) where reason == .byUser:
            return (.paused, .pausedByUser)
        case .paused(let reason):
            guard let after = reason.retryAfter else { return (.paused, QueueReason(code: reason.token, message: reason.description)) }
            let until = now.addingTimeInterval(Double(after.components.seconds) + Double(after.components.attoseconds) / 1e18)
            return (.paused, QueueReason(code: "waitingToRetry", message: reason.description, until: until))
        case .succeeded:
            return (.succeeded, nil)
        case .failed(let error):
            return (.failed, QueueReason(code: error.kind.description, message: error.description))
        case .cancelled:
            return (.cancelled, nil)
        }
    }

    /// A network wait in DownloadManager's words: "queued for Wi-Fi" when only Wi-Fi would do.
    static func waiting(_ reason: TransferWaitReason, policy: TransferPolicy) -> QueueReason {
        switch reason {
        case .noNetwork:
            return QueueReason(code: "waitingForNetwork", message: "waiting for a network")
        case .cellularNotAllowed, .expensiveNotAllowed:
            return QueueReason(code: "queuedForUnmetered", message: "queued for an unmetered network (\(reason))")
        case .typeNotAllowed:
            if policy.allowedStatuses == [.wifi] { return QueueReason(code: "queuedForWifi", message: "queued for Wi-Fi (\(reason))") }
            if policy.allowedStatuses == [.wired] { return QueueReason(code: "queuedForWired", message: "queued for a wired network (\(reason))") }
            return QueueReason(code: "queuedForNetworkType", message: "queued for another network type (\(reason))")
        case .overCellularSizeLimit:
            return QueueReason(code: "overCellularLimit", message: "queued for an unmetered network: \(reason)")
        case .overExpensiveSizeLimit:
            return QueueReason(code: "overMeteredLimit", message: "queued for an unmetered network: \(reason)")
        case .settling:
            return QueueReason(code: "settling", message: reason.description)
        case .noInternet:
            return QueueReason(code: "waitingForInternet", message: "waiting for the Internet: \(reason)")
        case .captivePortal:
            return QueueReason(code: "captivePortal", message: "waiting behind a \(reason)")
        case .checkingInternet:
            return QueueReason(code: "checkingInternet", message: "waiting while \(reason)")
        }
    }
}

extension QueueReason {
    /// `reach queue pause` (or `POST /v1/jobs/{id}/pause`).
    static let pausedByUser = QueueReason(code: "pausedByUser", message: "paused by the user")

    /// Held until `date` (`--not-before`).
    static func notBefore(_ date: Date) -> QueueReason {
        QueueReason(code: "notBefore", message: "not before \(QueueTime.text(date))", until: date)
    }

    /// A command that exited non-zero, run again at `date`.
    static func retrying(at date: Date, after cause: String) -> QueueReason {
        QueueReason(code: "waitingToRetry", message: "retrying at \(QueueTime.text(date)) after: \(cause)", until: date)
    }
}

/// Times as the queue shows them: ISO 8601 in UTC, to the second.
public enum QueueTime {
    // Formatters are costly to make (a list of 1,000 jobs decodes 3,000 dates) and not
    // thread-safe: one of each kind, behind a lock.
    private static let formatters = Mutex(Formatters())

    private struct Formatters: ~Copyable {
        let plain = ISO8601DateFormatter()
    }

    /// `2026-11-24T10:00:00Z`.
    public static func text(_ date: Date) -> String {
        UTCTimestamp.text(date) ?? formatters.withLock { $0.plain.string(from: date) }
    }

    /// Parses an RFC 3339 date-time (`2026-11-24T10:00:00Z`, `2026-11-24T12:00:00+02:00`,
    /// fractional seconds, `t`/`z` in lower case), strictly: a day past its month's end, an
    /// hour 24, an offset `+0000` or `+99:99`, digits other than ASCII are refused (nil).
    public static func parse(_ text: String) -> Date? {
        RFC3339Time.secondsSince1970(text).map(Date.init(timeIntervalSince1970:))
    }
}
