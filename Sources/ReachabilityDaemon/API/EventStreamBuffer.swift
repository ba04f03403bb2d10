import Synchronization

/// The lines waiting for one event-stream client, bounded in bytes. A client that reads so
/// slowly that a line would take it past ``limit`` bytes waiting is dropped: it still gets what
/// waits, then one final `{"type":"dropped",…}` line instead of that line, and the stream ends. So a client that never reads
/// costs the daemon at most ``limit`` bytes, however busy the queue is.
///
/// The reader takes whatever waits at once (``next(upTo:)``), so a burst of lines (10,000 jobs
/// re-judged by one path change) goes out in a few large writes: one write per line cost a
/// trip to the connection's event loop each, most of a path change's CPU with one client.
final class EventStreamBuffer: Sendable {
    /// The bytes a client may have waiting before it is dropped (about 2,000 job lines).
    static let defaultLimit = 2 << 20

    private struct State {
        var lines: [[UInt8]] = []
        var head = 0
        var bytes = 0
        var isClosed = false
        var waiter: CheckedContinuation<[UInt8]?, Never>?

        /// Removes and joins waiting lines, the first always, the others while they fit.
        mutating func take(upTo maxBytes: Int) -> [UInt8] {
            var chunk = lines[head]
            head += 1
            while head < lines.count, chunk.count + lines[head].count <= maxBytes {
                chunk += lines[head]
                head += 1
            }
            bytes -= chunk.count
            if head == lines.count {
                lines = []
                head = 0
            }
            return chunk
        }
    }

    let limit: Int
    private let state = Mutex(State())

    init(limit: Int = EventStreamBuffer.defaultLimit) { self.limit = limit }

    /// The final line a dropped client gets.
    static func droppedLine(waiting: Int) -> [UInt8] {
        Array(#"{"type":"dropped","reason":"slowClient","message":"the client read too slowly (\#(waiting) bytes were waiting): the stream ends; reconnect and list the jobs again"}"#.utf8) + [0x0A]
    }

    /// Adds a line; false once the stream has ended (the client is gone or was dropped).
    @discardableResult
    func push(_ line: [UInt8]) -> Bool {
        let (waiter, ok) = state.withLock { state -> (CheckedContinuation<[UInt8]?, Never>?, Bool) in
            guard !state.isClosed else { return (nil, false) }
            if let waiter = state.waiter {
                state.waiter = nil
                return (waiter, true)
            }
            if state.bytes + line.count > limit {
                let dropped = Self.droppedLine(waiting: state.bytes)
                state.lines.append(dropped)
                state.bytes += dropped.count
                state.isClosed = true
                return (nil, false)
            }
            state.lines.append(line)
            state.bytes += line.count
            return (nil, true)
        }
        waiter?.resume(returning: line)
        return ok
    }

    /// Ends the stream after what waits (the server stops).
    func close() {
        let waiter = state.withLock { state -> CheckedContinuation<[UInt8]?, Never>? in
            state.isClosed = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: nil)
    }

    /// What waits, whole lines in order, up to `maxBytes` (at least one line, however long);
    /// waits for a line when none does. Nil once the stream has ended and nothing waits, or the
    /// task is cancelled.
    func next(upTo maxBytes: Int = EventStreamBuffer.defaultChunk) async -> [UInt8]? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<[UInt8]?, Never>) in
                let ready = state.withLock { state -> [UInt8]?? in
                    if state.head < state.lines.count { return .some(state.take(upTo: maxBytes)) }
                    if state.isClosed || Task.isCancelled { return .some(nil) }
                    state.waiter = continuation
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            close()
        }
    }

    /// The most one ``next(upTo:)`` hands out by default: a few socket writes' worth.
    static let defaultChunk = 64 * 1024

    /// Bytes waiting now.
    var waitingBytes: Int { state.withLock { $0.bytes } }
}
