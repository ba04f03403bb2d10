import Synchronization

/// Values handed from one task to another in order: from a server's handler to the test, or
/// from the test to a handler. ``take()`` waits for the next one; it returns nil if the
/// waiting task is cancelled (a test hit its time limit).
final class Mailbox<Value: Sendable>: Sendable {
    private struct State {
        var values: [Value] = []
        var waiter: (id: Int, continuation: CheckedContinuation<Value?, Never>)?
        var nextID = 0
    }

    private let state = Mutex(State())

    init() {}

    func put(_ value: Value) {
        let waiter = state.withLock { state -> CheckedContinuation<Value?, Never>? in
            guard let waiter = state.waiter else {
                state.values.append(value)
                return nil
            }
            state.waiter = nil
            return waiter.continuation
        }
        waiter?.resume(returning: value)
    }

    /// What was put and not yet taken.
    var count: Int { state.withLock { $0.values.count } }

    func take() async -> Value? {
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let ready = state.withLock { state -> Value?? in
                    if !state.values.isEmpty { return .some(state.values.removeFirst()) }
                    if Task.isCancelled { return .some(nil) }
                    state.waiter = (id, continuation)
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Value?, Never>? in
                guard let waiter = state.waiter, waiter.id == id else { return nil }
                state.waiter = nil
                return waiter.continuation
            }
            waiter?.resume(returning: nil)
        }
    }
}
