import Reachability
import ReachabilityCore
import Synchronization

/// The gates of recent (policy, host) pairs, shared by the jobs that have them. A gate is
/// immutable (the hysteresis is each drive's own), so 10,000 downloads waiting alike need one
/// gate, not 10,000 (about 270 bytes and three allocations each). At most `capacity` are kept,
/// the least recently made let go first; a job keeps its own reference to its gate.
final class GateCache: Sendable {
    private struct Key: Hashable {
        var policy: TransferPolicy
        var host: String?
    }

    private struct State {
        var gates: [Key: TransferGate] = [:]
        /// Keys oldest first.
        var order: [Key] = []
    }

    let capacity: Int
    private let state = Mutex(State())

    init(capacity: Int = 64) { self.capacity = capacity }

    /// The gate for `policy` and `host`: the one made for them before while it is kept, else
    /// `make()`'s, kept from now on.
    func gate(policy: TransferPolicy, host: String?, make: () -> TransferGate) -> TransferGate {
        let key = Key(policy: policy, host: host)
        return state.withLock { state in
            if let gate = state.gates[key] { return gate }
            let gate = make()
            state.gates[key] = gate
            state.order.append(key)
            if state.order.count > capacity { state.gates[state.order.removeFirst()] = nil }
            return gate
        }
    }

    /// How many gates are kept.
    var count: Int { state.withLock { $0.gates.count } }
}
