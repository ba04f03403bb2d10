import ArgumentParser
import ReachabilityCore

/// The conditions `wait --for` and `run --when` accept.
enum Condition: String, CaseIterable, ExpressibleByArgument {
    case any, wifi, wired, unmetered

    var policy: TransferPolicy {
        switch self {
        case .any: .any
        case .wifi: .wifiOnly
        case .wired: .wiredOnly
        case .unmetered: .unmetered
        }
    }
}
