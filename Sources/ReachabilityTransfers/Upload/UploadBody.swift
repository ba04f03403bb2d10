import ReachabilityCore
import NIOCore
import Synchronization

/// Counts what one attempt hands to the connection, keeps the idle watchdog fed, and reports
/// progress at most every 50 ms (and at the end).
final class UploadMeter: Sendable {
    private let handed = Atomic<Int64>(0)
    private let lastReport = Mutex<ContinuousClock.Instant?>(nil)
    let activity: ActivityClock
    private let report: @Sendable (_ handed: Int64) -> Void
    private let total: Int64

    /// - Parameters:
    ///   - total: file bytes this attempt will hand over (the last chunk always reports).
    ///   - report: called with the file bytes handed over so far.
    init(total: Int64, activity: ActivityClock, report: @escaping @Sendable (_ handed: Int64) -> Void) {
        self.total = total
        self.activity = activity
        self.report = report
    }

    /// File bytes handed to the connection so far.
    var bytesHanded: Int64 { handed.load(ordering: .relaxed) }

    func handedOver(fileBytes count: Int64) {
        let now = ContinuousClock.now
        activity.touch(now)
        guard count > 0 else { return }
        let sum = handed.wrappingAdd(count, ordering: .relaxed).newValue
        let due = lastReport.withLock { last -> Bool in
            guard sum >= total || last.map({ now - $0 >= .milliseconds(50) }) ?? true else { return false }
            last = now
            return true
        }
        if due { report(sum) }
    }
}

/// A request body: an optional preamble, the file from `range`, an optional epilogue, in
/// chunks of at most 1 MiB read with `pread` as the connection asks for them — memory stays
/// bounded whatever the file's size, and a slow peer slows the reads (back-pressure).
struct UploadBody: AsyncSequence, Sendable {
    typealias Element = ByteBuffer

    static let chunkSize = 1 << 20

    let source: UploadSource
    let range: Range<Int64>
    let preamble: [UInt8]
    let epilogue: [UInt8]
    let meter: UploadMeter

    init(source: UploadSource, range: Range<Int64>, preamble: [UInt8] = [], epilogue: [UInt8] = [], meter: UploadMeter) {
        self.source = source
        self.range = range
        self.preamble = preamble
        self.epilogue = epilogue
        self.meter = meter
    }

    /// The exact body length, for `Content-Length`.
    var length: Int64 { Int64(preamble.count) + Int64(range.count) + Int64(epilogue.count) }

    func makeAsyncIterator() -> Iterator { Iterator(body: self) }

    struct Iterator: AsyncIteratorProtocol {
        private enum Stage { case preamble, file(Int64), epilogue, done }
        private let body: UploadBody
        private var stage = Stage.preamble
        private let allocator = ByteBufferAllocator()

        init(body: UploadBody) { self.body = body }

        mutating func next() async throws -> ByteBuffer? {
            while true {
                switch stage {
                case .preamble:
                    stage = .file(body.range.lowerBound)
                    if !body.preamble.isEmpty { return allocator.buffer(bytes: body.preamble) }
                case .file(let offset):
                    guard offset < body.range.upperBound else {
                        stage = .epilogue
                        continue
                    }
                    // A cancelled upload stops reading at once instead of after the chunk in flight.
                    try Task.checkCancellation()
                    let count = Int(Swift.min(Int64(UploadBody.chunkSize), body.range.upperBound - offset))
                    let chunk = try body.source.read(at: offset, count: count, allocator: allocator)
                    stage = .file(offset + Int64(count))
                    body.meter.handedOver(fileBytes: Int64(count))
                    return chunk
                case .epilogue:
                    stage = .done
                    if !body.epilogue.isEmpty { return allocator.buffer(bytes: body.epilogue) }
                case .done:
                    return nil
                }
            }
        }
    }
}
