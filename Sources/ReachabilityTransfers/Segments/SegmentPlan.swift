import ReachabilityCore
/// Which bytes of a segmented download are on disk, which are being fetched, and which to ask
/// for next. A pure value: no I/O, no clock (rates are given).
///
/// Segments are handed out from the front of what is missing, each sized to take about
/// ``targetDuration`` at the rate its connection reached on its previous segment (at least
/// ``minimumLength``, at most ``maximumLength``). Handing them out front first keeps the bytes on
/// disk nearly contiguous from byte 0, so the SHA-256 can follow the download instead of reading
/// the whole file at the end; sizing them by rate keeps a request's round trip small next to its
/// body. Near the end, segments shrink to share what is left among the connections, so they
/// finish together.
struct SegmentPlan: Sendable, Hashable {
    /// No segment is cut smaller than this (except the last bytes of a gap).
    static let minimumLength: Int64 = 1 << 20
    /// The first segments' length, before any rate is known; also the opening request's.
    static let initialLength: Int64 = 4 << 20
    /// The longest segment: how far the hashed prefix can trail the bytes on disk, per connection.
    static let maximumLength: Int64 = 64 << 20
    /// How long a segment should take at its connection's rate.
    static let targetDuration: Double = 2

    /// The resource's size.
    let size: Int64
    /// How many connections fetch at once.
    let connections: Int
    /// Bytes written and known good.
    private(set) var completed: RangeSet<Int64>
    /// Segments handed out and not given back.
    private(set) var claimed = RangeSet<Int64>()

    init(size: Int64, connections: Int, completed: RangeSet<Int64>) {
        self.size = size
        self.connections = max(1, connections)
        self.completed = completed
    }

    /// Bytes on disk.
    var completedBytes: Int64 { completed.ranges.reduce(0) { $0 + Int64($1.count) } }

    /// Where the run of completed bytes from byte 0 ends (0 when byte 0 is missing).
    var contiguousPrefix: Int64 {
        guard let first = completed.ranges.first, first.lowerBound == 0 else { return 0 }
        return first.upperBound
    }

    var isComplete: Bool { completedBytes == size }

    /// Bytes neither on disk nor handed out.
    var unclaimed: RangeSet<Int64> {
        var free = RangeSet(0..<size)
        free.subtract(completed)
        free.subtract(claimed)
        return free
    }

    /// Hands out the next segment: the first missing bytes nobody fetches, sized for a
    /// connection that moved `rate` bytes per second on its last segment (nil: not known yet).
    /// Nil when every missing byte is already being fetched.
    mutating func claim(rate: Double?) -> Range<Int64>? {
        let free = unclaimed
        guard let gap = free.ranges.first else { return nil }
        let freeBytes = free.ranges.reduce(0) { $0 + Int64($1.count) }
        var length = rate.map { Int64(($0 * Self.targetDuration).rounded()) } ?? Self.initialLength
        length = min(length, Self.maximumLength)
        // Share what is left, so the connections finish together.
        length = min(length, (freeBytes + Int64(connections) - 1) / Int64(connections))
        length = max(length, Self.minimumLength)
        let gapLength = Int64(gap.count)
        // Never leave a sliver behind that would need a request of its own.
        if length >= gapLength || gapLength - length < Self.minimumLength { length = gapLength }
        let segment = gap.lowerBound..<(gap.lowerBound + length)
        claimed.insert(contentsOf: segment)
        return segment
    }

    /// Marks a segment as handed out (the opening request's, already under way).
    mutating func claim(_ segment: Range<Int64>) {
        claimed.insert(contentsOf: segment)
    }

    /// Records bytes written.
    mutating func complete(_ range: Range<Int64>) {
        completed.insert(contentsOf: range)
    }

    /// Gives back what is left of a segment (its connection stopped or finished).
    mutating func release(_ segment: Range<Int64>) {
        claimed.remove(contentsOf: segment)
    }

    /// The completed ranges as stored in the metadata.
    var storedRanges: [Range<Int64>] { Array(completed.ranges) }

    /// The completed ranges a sidecar records, when they can be trusted for `size` and a partial
    /// file of `fileLength` bytes: sorted, inside the resource, and all within the file.
    static func validated(_ stored: [Range<Int64>], size: Int64, fileLength: Int64) -> RangeSet<Int64>? {
        var set = RangeSet<Int64>()
        for range in stored {
            guard range.lowerBound >= 0, range.upperBound <= size, range.upperBound <= fileLength else { return nil }
            set.insert(contentsOf: range)
        }
        return set
    }
}
