import Synchronization

/// Name lookups that never wait for one another: each runs on a thread of its own (the system
/// resolver blocks), at most ``maxConcurrent`` at once (128 by default: a thread blocked in
/// `getaddrinfo` costs a stack, little memory), the rest in arrival order. Asking for a
/// name already being looked up joins that lookup instead of starting another.
///
/// A slow name (a server that answers after seconds, or never) delays only those who asked for
/// it: the callers keep their own deadlines, since `getaddrinfo` cannot be cancelled.
public final class HostLookups: Sendable {
    /// What a lookup gives: a name's addresses, or why it has none.
    public typealias Answer = Result<[String], ResolutionError>
    public typealias Resolve = @Sendable (String) -> Answer

    /// The most threads resolving at once.
    public let maxConcurrent: Int
    private let resolve: Resolve

    private struct State {
        var running = 0
        var waiting: [String] = []
        var callers: [String: [@Sendable (Answer) -> Void]] = [:]
    }

    private let state = Mutex(State())

    /// - Parameter resolve: the lookup itself; by default the system resolver
    ///   (``HostResolver/addresses(of:)``).
    public init(maxConcurrent: Int = 128, resolve: @escaping Resolve = HostLookups.systemResolver) {
        self.maxConcurrent = max(1, maxConcurrent)
        self.resolve = resolve
    }

    /// ``HostResolver/addresses(of:)`` as an ``Answer``.
    public static let systemResolver: Resolve = { host in
        do throws(ResolutionError) { return .success(try HostResolver.addresses(of: host)) } catch { return .failure(error) }
    }

    /// Lookups started or waiting, for tests and statistics.
    public var pending: Int { state.withLock { $0.callers.count } }

    /// Looks `host` up and hands the answer to `then`, on the lookup's thread.
    public func lookUp(_ host: String, then: @escaping @Sendable (Answer) -> Void) {
        let starts = state.withLock { state -> Bool in
            if state.callers[host] != nil {
                state.callers[host]!.append(then)
                return false
            }
            state.callers[host] = [then]
            guard state.running < maxConcurrent else {
                state.waiting.append(host)
                return false
            }
            state.running += 1
            return true
        }
        if starts { OwnerThread.detached(name: "reach-lookup") { self.work(from: host) } }
    }

    /// Resolves `host`, then each waiting name in turn, until none waits.
    private func work(from host: String) {
        var next: String? = host
        while let host = next {
            let answer = resolve(host)
            let callers = state.withLock { state -> [@Sendable (Answer) -> Void] in
                defer {
                    if state.waiting.isEmpty {
                        state.running -= 1
                        next = nil
                    } else {
                        next = state.waiting.removeFirst()
                    }
                }
                return state.callers.removeValue(forKey: host) ?? []
            }
            for caller in callers { caller(answer) }
        }
    }
}
