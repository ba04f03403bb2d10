import Synchronization

/// Wakes one waiting task early, or lets it sleep until a deadline: the validator's loop waits
/// for "something changed" or "a probe is due", whichever comes first, without polling.
final class WakeSignal: Sendable {
    private struct State {
        var pending = false
        var waiter: CheckedContinuation<Void, Never>?
    }

    private let state = Mutex(State())

    /// Wakes the waiter, or the next `wait` at once if nobody waits now.
    func signal() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard let waiter = state.waiter else {
                state.pending = true
                return nil
            }
            state.waiter = nil
            return waiter
        }
        waiter?.resume()
    }

    /// Returns after a `signal()`, at `deadline` (nil: no deadline), or when the task is cancelled.
    func wait(until deadline: ContinuousClock.Instant?) async {
        await withDiscardingTaskGroup { group in
            if let deadline {
                group.addTask {
                    // Only a sleep that ran out wakes the waiter. A sleep cancelled because a
                    // signal came first must not signal: that would leave `pending` set, the next
                    // wait would return at once, cancel its sleep, signal again, and spin forever.
                    guard (try? await Task.sleep(until: deadline, clock: .continuous)) != nil else { return }
                    self.signal()
                }
            }
            await self.waitForSignal()
            group.cancelAll()
        }
    }

    /// A signal is waiting to be taken by the next `wait` (for tests).
    var hasPendingSignal: Bool { state.withLock(\.pending) }

    private func waitForSignal() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let resumeNow = state.withLock { state -> Bool in
                    if state.pending || Task.isCancelled {
                        state.pending = false
                        return true
                    }
                    state.waiter = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            signal()
        }
    }
}
