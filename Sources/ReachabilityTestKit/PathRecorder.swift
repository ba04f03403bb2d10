public import Reachability
public import ReachabilityCore
import Synchronization

/// Iterates a monitor's paths in the background and lets a test wait for a path that
/// satisfies a condition. The timeout only bounds a broken test; no test asserts on time.
public final class PathRecorder: Sendable {
    private struct Waiter {
        var predicate: @Sendable (NetworkPath) -> Bool
        var continuation: CheckedContinuation<NetworkPath, any Error>
    }

    private struct State {
        var paths: [NetworkPath] = []
        var waiters: [UInt64: Waiter] = [:]
        var nextID: UInt64 = 0
        var failure: (any Error)?
        var finished = false
    }

    private final class Storage: Sendable {
        let state = Mutex(State())
    }

    private let storage = Storage()
    private let task = Mutex<Task<Void, Never>?>(nil)

    /// Starts iterating `paths`.
    public init(_ paths: NetworkPathUpdates) {
        let started = Task { [storage] in
            do {
                for try await path in paths {
                    let ready = storage.state.withLock { state -> [(CheckedContinuation<NetworkPath, any Error>, NetworkPath)] in
                        state.paths.append(path)
                        let matched = state.waiters.filter { $0.value.predicate(path) }
                        for key in matched.keys { state.waiters[key] = nil }
                        return matched.values.map { ($0.continuation, path) }
                    }
                    for (continuation, path) in ready { continuation.resume(returning: path) }
                }
                Self.finish(storage, error: nil)
            } catch {
                Self.finish(storage, error: error)
            }
        }
        task.withLock { $0 = started }
    }

    private static func finish(_ storage: Storage, error: (any Error)?) {
        let waiters = storage.state.withLock { state -> [Waiter] in
            state.failure = error
            state.finished = true
            defer { state.waiters.removeAll() }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.continuation.resume(throwing: error ?? RecorderError.finished) }
    }

    /// Every path received so far, in order.
    public var paths: [NetworkPath] { storage.state.withLock { $0.paths } }

    /// The error the sequence ended with, if any.
    public var failure: (any Error)? { storage.state.withLock { $0.failure } }

    /// Returns the first path, received after `after` earlier ones, that satisfies `predicate`.
    public func wait(
        after: Int = 0, timeout: Duration = .seconds(60), _ predicate: @escaping @Sendable (NetworkPath) -> Bool
    ) async throws -> NetworkPath {
        let id = storage.state.withLock { state -> UInt64 in
            defer { state.nextID += 1 }
            return state.nextID
        }
        let timer = Task { [storage] in
            try? await Task.sleep(for: timeout)
            let waiter = storage.state.withLock { $0.waiters.removeValue(forKey: id) }
            let seen = storage.state.withLock { $0.paths.suffix(3).map { "\($0.status) \($0.primary?.name ?? "-")" } }
            waiter?.continuation.resume(throwing: RecorderError.timedOut(lastPaths: seen))
        }
        defer { timer.cancel() }
        return try await withCheckedThrowingContinuation { continuation in
            let immediate = storage.state.withLock { state -> Result<NetworkPath, any Error>? in
                if let match = state.paths.dropFirst(after).first(where: predicate) { return .success(match) }
                if state.finished { return .failure(state.failure ?? RecorderError.finished) }
                state.waiters[id] = Waiter(predicate: predicate, continuation: continuation)
                return nil
            }
            if let immediate { continuation.resume(with: immediate) }
        }
    }

    /// Stops iterating (the monitor then releases its source if no one else listens).
    public func cancel() async {
        let running = task.withLock { $0 }
        running?.cancel()
        await running?.value
    }
}

public enum RecorderError: Error, CustomStringConvertible {
    case timedOut(lastPaths: [String])
    case finished

    public var description: String {
        switch self {
        case .timedOut(let last): "no matching path arrived; last paths: \(last)"
        case .finished: "the path sequence ended"
        }
    }
}
