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
    /// The interface is gone (deleted, or moved to another network namespace): these are its
    /// last counters.
    public var isRemoved: Bool
    /// Its hardware address, when it has one: an interface moved to another namespace and back
    /// keeps it (and its counters), which tells it from a new one.
    public var hardwareAddress: String?

    /// Counters given field by field.
    public init(
        index: Int32, name: String, receivedBytes: UInt64, sentBytes: UInt64, isRemoved: Bool = false, hardwareAddress: String? = nil
    ) {
        self.index = index
        self.name = name
        self.receivedBytes = receivedBytes
        self.sentBytes = sentBytes
        self.isRemoved = isRemoved
        self.hardwareAddress = hardwareAddress
    }

    /// Received and sent together, what a budget counts (wrapping, as the kernel's counters do).
    public var totalBytes: UInt64 { receivedBytes &+ sentBytes }
}
