import Logging
import ReachabilityTransfers

/// What the daemon logs about its jobs and its path, and at which level: failures at
/// `warning`, retries, successes and path changes at `info`, every other move at `debug`. The
/// words are those `reach queue` shows (URLs redacted, never a credential); a path in words
/// names no SSID or BSSID.
enum DaemonLogLines {
    /// The line for `job` having moved from `previous` to its state and reason now; nil when
    /// nothing moved.
    static func job(_ job: QueueJob, from previous: JobStatus, previousCode: String?) -> (level: Logger.Level, text: String)? {
        guard job.state != previous || job.reason?.code != previousCode else { return nil }
        let name = "job \(job.id) (\(job.spec.kind))"
        let reason = job.reason.map { "\($0.message) [\($0.code)]" } ?? ""
        switch job.state {
        case .failed:
            return (.warning, "\(name) failed: \(reason)")
        case .paused where job.reason?.code == "waitingToRetry":
            return (.info, "\(name) retrying: \(reason)")
        case .succeeded:
            return (.info, "\(name) succeeded after \(job.attempts) attempt(s), \(job.progress.transferredBytes) B moved")
        case .paused:
            return (.debug, "\(name) paused: \(reason)")
        default:
            return (.debug, "\(name) \(job.state)" + (job.network.map { " on \($0)" } ?? ""))
        }
    }

    /// The line for a path whose summary in words went from `previous` to `now`; nil when it
    /// did not change (the paths of one route switch often differ only in what no line shows).
    static func path(_ now: String, previous: String?) -> (level: Logger.Level, text: String)? {
        guard now != previous else { return nil }
        return (.info, "path: \(now)")
    }
}
