import ArgumentParser
package import ReachabilityCore

/// The conditions `wait --for` and `run --when` accept.
package enum Condition: String, CaseIterable, ExpressibleByArgument, Sendable {
    case any, wifi, wired, unmetered

    package var policy: TransferPolicy {
        switch self {
        case .any: .any
        case .wifi: .wifiOnly
        case .wired: .wiredOnly
        case .unmetered: .unmetered
        }
    }
}
