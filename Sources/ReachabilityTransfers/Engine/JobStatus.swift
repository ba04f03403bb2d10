public import FoundationEssentials
public import ReachabilityCore
import Synchronization

/// A job's state in the words every consumer uses — the engine's events, the daemon's
/// database, its API and the CLI: Android DownloadManager's statuses. It is computed from the
/// engine's ``JobState`` by ``JobState/status(under:now:)``, the one place that maps the two.
/// A struct over its token, so states can be added without breaking adopters.
public struct JobStatus: RawRepresentable, Codable, Sendable, Hashable, CustomStringConvertible {
    /// The JSON and database token.
    public let rawValue: String
    /// A status from its token (an unknown token is kept, and refused where it matters).
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Accepted, waiting for its turn (a free slot) or its first judgement.
    public static let pending = JobStatus(rawValue: "pending")
    /// Moving bytes, or its command is running.
    public static let running = JobStatus(rawValue: "running")
    /// Not running, for the job's ``JobReason``: the network, a retry, its start time, the user.
    public static let paused = JobStatus(rawValue: "paused")
    /// Done.
    public static let succeeded = JobStatus(rawValue: "succeeded")
    /// Given up; the reason says why.
    public static let failed = JobStatus(rawValue: "failed")
    /// Stopped for good by the user.
    public static let cancelled = JobStatus(rawValue: "cancelled")

    /// Every status, in the order lists group them.
    public static let all: [JobStatus] = [.pending, .running, .paused, .succeeded, .failed, .cancelled]

    /// Succeeded, failed or cancelled: the job never runs again.
    public var isFinal: Bool { self == .succeeded || self == .failed || self == .cancelled }

    public var description: String { rawValue }
}

/// Why a job is paused or failed: a stable code, words for people, and the time it waits for.
public struct JobReason: Codable, Sendable, Hashable, CustomStringConvertible {
    /// A stable token: `waitingForNetwork`, `queuedForUnmetered`, `queuedForWifi`,
    /// `queuedForWired`, `overCellularLimit`, `overMeteredLimit`, `settling`, `waitingToRetry`,
    /// `notBefore`, `pausedByUser`, `overBudget`; for a failure, the error's kind (`httpStatus(404)`, …) or
    /// `exitStatus`, `credentialsLost`, `invalidJob`.
    public var code: String
    /// The reason in words, naming the predicate that fails and its input.
    public var message: String
    /// For `waitingToRetry` and `notBefore`: when the job runs again.
    public var until: Date?

    /// A reason given field by field.
    public init(code: String, message: String, until: Date? = nil) {
        self.code = code
        self.message = message
        self.until = until
    }

    public var description: String { message }

    /// ``TransferEngine/pause(_:)`` (`reach queue pause`).
    public static let pausedByUser = JobReason(code: "pausedByUser", message: "paused by the user")
}

extension JobState {
    /// This state as a ``JobStatus`` and ``JobReason`` for a job under `policy`, at `now` (a
    /// retry's time is `now` plus its delay). Pure, so it is tested with a table.
    public func status(under policy: TransferPolicy, now: Date) -> (JobStatus, JobReason?) {
        switch self {
        case .queued:
            return (.pending, nil)
        case .running:
            return (.running, nil)
        case .waiting(let reason):
            return (.paused, JobReason.waiting(reason, policy: policy))
        case .paused(let reason) where reason == .byUser:
            return (.paused, .pausedByUser)
        case .paused(let reason):
            guard let after = reason.retryAfter else { return (.paused, JobReason(code: reason.token, message: reason.description)) }
            let until = now.addingTimeInterval(Double(after.components.seconds) + Double(after.components.attoseconds) / 1e18)
            return (.paused, JobReason(code: "waitingToRetry", message: reason.description, until: until))
        case .succeeded:
            return (.succeeded, nil)
        case .failed(let error):
            return (.failed, JobReason(code: error.kind.description, message: error.description))
        case .cancelled:
            return (.cancelled, nil)
        }
    }
}

extension JobReason {
    /// A network wait in DownloadManager's words: "queued for Wi-Fi" when only Wi-Fi would do.
    /// The last answer is kept: thousands of jobs waiting on one path change ask the same.
    static func waiting(_ reason: TransferWaitReason, policy: TransferPolicy) -> JobReason {
        let key = WaitingKey(reason: reason, statuses: policy.allowedStatuses)
        if let hit = lastWaiting.withLock({ $0?.key == key ? $0?.answer : nil }) { return hit }
        let answer = words(for: reason, policy: policy)
        lastWaiting.withLock { $0 = (key, answer) }
        return answer
    }

    private struct WaitingKey: Hashable {
        var reason: TransferWaitReason
        var statuses: Set<NetworkPath.Status>
    }

    private static let lastWaiting = Mutex<(key: WaitingKey, answer: JobReason)?>(nil)

    private static func words(for reason: TransferWaitReason, policy: TransferPolicy) -> JobReason {
        switch reason {
        case .noNetwork:
            return JobReason(code: "waitingForNetwork", message: "waiting for a network")
        case .cellularNotAllowed, .expensiveNotAllowed:
            return JobReason(code: "queuedForUnmetered", message: "queued for an unmetered network (\(reason))")
        case .typeNotAllowed:
            if policy.allowedStatuses == [.wifi] { return JobReason(code: "queuedForWifi", message: "queued for Wi-Fi (\(reason))") }
            if policy.allowedStatuses == [.wired] { return JobReason(code: "queuedForWired", message: "queued for a wired network (\(reason))") }
            return JobReason(code: "queuedForNetworkType", message: "queued for another network type (\(reason))")
        case .overCellularSizeLimit:
            return JobReason(code: "overCellularLimit", message: "queued for an unmetered network: \(reason)")
        case .overExpensiveSizeLimit:
            return JobReason(code: "overMeteredLimit", message: "queued for an unmetered network: \(reason)")
        case .settling:
            return JobReason(code: "settling", message: reason.description)
        case .noInternet:
            return JobReason(code: "waitingForInternet", message: "waiting for the Internet: \(reason)")
        case .captivePortal:
            return JobReason(code: "captivePortal", message: "waiting behind a \(reason)")
        case .checkingInternet:
            return JobReason(code: "checkingInternet", message: "waiting while \(reason)")
        case .overBudget(_, let end):
            return JobReason(code: "overBudget", message: "waiting: \(reason)", until: end.map { Date(timeIntervalSince1970: Double($0)) })
        }
    }
}
