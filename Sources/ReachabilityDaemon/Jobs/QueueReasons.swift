import FoundationEssentials
import ReachabilityTransfers

extension JobReason {
    /// Held until `date` (`--not-before`).
    static func notBefore(_ date: Date) -> JobReason {
        JobReason(code: "notBefore", message: "not before \(QueueTime.text(date))", until: date)
    }
}
