import ArgumentParser
package import ReachabilityCore

/// The conditions `wait --for` and `run --when` accept.
package enum Condition: String, CaseIterable, ExpressibleByArgument, Sendable {
    case any, wifi, wired, unmetered, internet

    /// The policy of the condition. With probing on, every condition also waits for `full`
    /// connectivity (``TransferPolicy/requiresInternet``); `internet` is `any` plus that, and
    /// needs probing to mean anything (the commands refuse it without a probe).
    package var policy: TransferPolicy {
        switch self {
        case .any, .internet: .any
        case .wifi: .wifiOnly
        case .wired: .wiredOnly
        case .unmetered: .unmetered
        }
    }
}
