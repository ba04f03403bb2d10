/// One interface's byte counters as the kernel reported them (`IFLA_STATS64`): all traffic, not
/// just ours.
public struct InterfaceCounters: Sendable, Hashable {
    /// The interface's index (unique while it exists).
    public var index: Int32
    /// Its name when read.
    public var name: String
    /// Bytes received since the interface was created (or its counters reset).
    public var receivedBytes: UInt64
    /// Bytes sent, likewise.
    public var sentBytes: UInt64
    /// The interface is gone: these are its last counters.
    public var isRemoved: Bool

    /// Counters given field by field.
    public init(index: Int32, name: String, receivedBytes: UInt64, sentBytes: UInt64, isRemoved: Bool = false) {
        self.index = index
        self.name = name
        self.receivedBytes = receivedBytes
        self.sentBytes = sentBytes
        self.isRemoved = isRemoved
    }

    /// Received and sent together, what a budget counts (wrapping, as the kernel's counters do).
    public var totalBytes: UInt64 { receivedBytes &+ sentBytes }
}
