import Reachability
import ReachabilityCore
import ReachabilityTestKit
@testable import ReachabilityTransfers
import Testing

/// Transfers judged alike (one policy, one host) share one gate; the cache is bounded.
@Suite("GateCache")
struct GateCacheTests {
    @Test func jobsJudgedAlikeShareAGateAndTheOldestIsLetGo() {
        let monitor = NetworkMonitor(source: FakeNetworkSource(initial: NetworkSnapshot()), configuration: MonitorConfiguration(), clock: ContinuousClock())
        let cache = GateCache(capacity: 2)
        var made = 0
        func gate(_ policy: TransferPolicy, _ host: String?) -> TransferGate {
            cache.gate(policy: policy, host: host) {
                made += 1
                return TransferGate(monitor: monitor, policy: policy, destination: host)
            }
        }
        let wifiOnly = TransferPolicy(allowsCellular: false)
        let first = gate(wifiOnly, "a.example")
        #expect(gate(wifiOnly, "a.example") === first)
        #expect(made == 1)
        #expect(gate(TransferPolicy(), "a.example") !== first, "another policy, another gate")
        #expect(gate(wifiOnly, nil) !== first, "the default path is another judge")
        #expect(made == 3)
        #expect(cache.count == 2, "at most its capacity")
        // The first was the oldest: let go, and made anew when asked again.
        #expect(gate(wifiOnly, "a.example") !== first)
        #expect(made == 4)
    }
}
