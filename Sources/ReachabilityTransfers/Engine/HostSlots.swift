import ReachabilityCore
import Synchronization

/// At most `perHost` running jobs per host and `total` in all. Slots are taken only once the
/// gate allows a job, so a job waiting for its network never holds one; waiters are served by
/// priority, then in order.
final class HostSlots: Sendable {
    private struct Waiter {
        let ticket: UInt64
        let host: String
        let rank: Int
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var active: [String: Int] = [:]
        var running = 0
        var waiters: [Waiter] = []
        var nextTicket: UInt64 = 0
    }

    let perHost: Int
    let total: Int
    private let state = Mutex(State())

    init(perHost: Int, total: Int) {
        self.perHost = max(1, perHost)
        self.total = max(1, total)
    }

    /// Jobs in line for a slot (for tests: a job's `queued` state is also its state before its
    /// first judgement, so it does not say the job is in line yet).
    var waiterCount: Int { state.withLock { $0.waiters.count } }

    /// Takes a slot for `host`, waiting for one; throws `CancellationError` if cancelled first.
    /// `onWaiting` is called once the caller is registered as a waiter (not when a slot was free),
    /// so a job shown as queued is already in line for the next free slot.
    func acquire(_ host: String, priority: Transfer.Priority, onWaiting: @Sendable () -> Void = {}) async throws {
        let rank = switch priority {
        case .userInitiated: 0
        case .normal: 1
        case .background: 2
        }
        let ticket = state.withLock { state -> UInt64? in
            if state.running < total, state.active[host, default: 0] < perHost, !state.waiters.contains(where: { $0.rank <= rank && state.active[$0.host, default: 0] < perHost }) {
                state.running += 1
                state.active[host, default: 0] += 1
                return nil
            }
            state.nextTicket += 1
            return state.nextTicket
        }
        guard let ticket else { return }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let cancelledAlready = state.withLock { state -> Bool in
                    if Task.isCancelled { return true }
                    state.waiters.append(Waiter(ticket: ticket, host: host, rank: rank, continuation: continuation))
                    return false
                }
                if cancelledAlready {
                    continuation.resume(throwing: CancellationError())
                } else {
                    onWaiting()
                    grant()
                }
            }
        } onCancel: {
            let removed = state.withLock { state -> Waiter? in
                guard let index = state.waiters.firstIndex(where: { $0.ticket == ticket }) else { return nil }
                return state.waiters.remove(at: index)
            }
            removed?.continuation.resume(throwing: CancellationError())
        }
    }

    func release(_ host: String) {
        state.withLock { state in
            state.running -= 1
            state.active[host, default: 1] -= 1
            if state.active[host] == 0 { state.active[host] = nil }
        }
        grant()
    }

    /// Hands free slots to the best waiters whose host has room.
    private func grant() {
        while true {
            let next = state.withLock { state -> Waiter? in
                guard state.running < total else { return nil }
                let order = state.waiters.indices.sorted { (state.waiters[$0].rank, state.waiters[$0].ticket) < (state.waiters[$1].rank, state.waiters[$1].ticket) }
                guard let index = order.first(where: { state.active[state.waiters[$0].host, default: 0] < perHost }) else { return nil }
                let waiter = state.waiters.remove(at: index)
                state.running += 1
                state.active[waiter.host, default: 0] += 1
                return waiter
            }
            guard let next else { return }
            next.continuation.resume()
        }
    }
}
