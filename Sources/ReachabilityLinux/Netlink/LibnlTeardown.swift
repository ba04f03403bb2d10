import Glibc
import Synchronization

/// Frees libnl cache managers only while the process is not exiting.
///
/// libnl 3.7's `nl_cache_mngr_free` looks up each cache's operations to "unprovide" it, and
/// calls `BUG()` (an abort) when they are gone, which they are once libnl-route's destructors
/// have run at `exit`. A watcher thread tearing its session down while the main thread exits
/// would then kill the process with SIGABRT after its work was done. An `atexit` handler,
/// which runs before the libraries' destructors, closes the gate; it waits for a free in
/// progress, and later ones are skipped (the process is going away: nothing leaks).
enum LibnlTeardown {
    private static let exiting = Mutex(false)

    private static let registration: Void = {
        atexit { LibnlTeardown.exiting.withLock { $0 = true } }
    }()

    /// Call before creating what ``free(_:)`` will free, so the handler is registered after
    /// libnl was loaded and runs before its destructors.
    static func register() {
        _ = registration
    }

    /// Runs `release` unless the process is exiting; an exit waits for it to finish.
    static func free(_ release: () -> Void) {
        exiting.withLock { exiting in
            if !exiting { release() }
        }
    }
}
