internal import CNetlink
import Glibc

/// A dedicated POSIX thread: netlink sockets and namespace switches (`setns` moves only the
/// calling thread) need one thread that owns them from start to end.
/// `@unchecked Sendable`: its only state is the thread handle, set once in `init`; `join` is
/// called once, by whoever stops the thread.
final class OwnerThread: @unchecked Sendable {
    private var thread: pthread_t

    private final class Body {
        let run: () -> Void
        init(_ run: @escaping () -> Void) { self.run = run }
    }

    /// Starts `body` on a new thread.
    init(name: String, _ body: @escaping () -> Void) {
        let context = Unmanaged.passRetained(Body(body)).toOpaque()
        var handle = pthread_t()
        let result = pthread_create(&handle, nil, { context in
            let body = Unmanaged<Body>.fromOpaque(context!).takeRetainedValue()
            body.run()
            return nil
        }, context)
        precondition(result == 0, "pthread_create failed: \(result)")
        reach_set_thread_name(handle, String(name.prefix(15)))
        thread = handle
    }

    /// Waits for the thread to end.
    func join() {
        // Joining itself would deadlock: a handler that stops its own watcher detaches instead.
        if pthread_equal(thread, pthread_self()) != 0 {
            _ = pthread_detach(thread)
            return
        }
        _ = pthread_join(thread, nil)
    }

    /// Starts `body` on a new thread that nobody joins: it ends when `body` returns.
    static func detached(name: String, _ body: @escaping () -> Void) {
        let thread = OwnerThread(name: name, body)
        _ = pthread_detach(thread.thread)
    }

    /// Runs `body` on a fresh thread and returns its result: for work that must happen inside
    /// another network namespace without moving the caller.
    static func run<T>(name: String, _ body: @escaping () -> T) -> T {
        nonisolated(unsafe) var result: T?
        let thread = OwnerThread(name: name) { result = body() }
        thread.join()
        return result!
    }
}
