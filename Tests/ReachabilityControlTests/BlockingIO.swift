import Foundation

/// Runs blocking system calls on a thread of their own, never on the cooperative pool: with
/// two cores the pool has two threads, and a test blocked in `read` there could starve the
/// server (whose handlers run on the pool) it is waiting for.
func onOwnThread<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        let thread = Thread { continuation.resume(with: Result { try work() }) }
        thread.start()
    }
}

/// A test helper's failure, with what it was doing.
struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
