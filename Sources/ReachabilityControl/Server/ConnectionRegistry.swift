import NIOCore
import Synchronization

/// The server's open connections: admits new ones within the limits, and closes them all when
/// the server stops, including any accepted but not yet picked up by the accept loop.
///
/// Fair to every user: each user (but root) holds at most ``Limits/maxConnectionsPerUser``;
/// and when the server or a user's share is full, a connection that is idle (no request being
/// answered) makes room for the new one, so silent connections cannot lock anyone out. Root
/// may use `Limits.rootReserve` connections beyond the limit: `reach queue` as root gets in.
final class ConnectionRegistry: Sendable {
    private struct Entry {
        var channel: any Channel
        var uid: UInt32?
        var activity: ConnectionActivity
        var admitted: UInt64
    }

    private let limit: Int
    private let perUser: Int
    private let rootReserve: Int
    private let open = Mutex<(entries: [ObjectIdentifier: Entry], serial: UInt64)>(([:], 0))

    init(limit: Int, perUser: Int? = nil, rootReserve: Int = 0) {
        self.limit = max(1, limit)
        self.perUser = max(1, perUser ?? limit)
        self.rootReserve = max(0, rootReserve)
    }

    /// Registers `channel` (of user `uid`, when known) until it closes; false (and the channel
    /// is closed) when there is no room, even after closing an idle connection.
    func admit(_ channel: any Channel, uid: UInt32?, activity: ConnectionActivity) -> Bool {
        let id = ObjectIdentifier(channel)
        let (admitted, evicted) = open.withLock { open -> (Bool, (any Channel)?) in
            var evicted: (any Channel)?
            let entries = open.entries
            if uid != 0 {
                let mine = entries.filter { $0.value.uid == uid }
                if mine.count >= perUser {
                    guard let idle = Self.oldestIdle(mine) else { return (false, nil) }
                    evicted = open.entries.removeValue(forKey: idle)?.channel
                }
            }
            let cap = uid == 0 ? limit + rootReserve : limit
            if evicted == nil && open.entries.count >= cap {
                // The idle connection of whoever holds the most makes room.
                let counts = Dictionary(grouping: entries.values, by: \.uid).mapValues(\.count)
                let candidates = entries.filter { $0.value.activity.isIdle }
                guard let idle = candidates.max(by: { lhs, rhs in
                    let (left, right) = (counts[lhs.value.uid] ?? 0, counts[rhs.value.uid] ?? 0)
                    return left != right ? left < right : lhs.value.admitted > rhs.value.admitted
                })?.key else { return (false, nil) }
                evicted = open.entries.removeValue(forKey: idle)?.channel
            }
            open.serial += 1
            open.entries[id] = Entry(channel: channel, uid: uid, activity: activity, admitted: open.serial)
            return (true, evicted)
        }
        evicted?.close(promise: nil)
        guard admitted else {
            channel.close(promise: nil)
            return false
        }
        channel.closeFuture.whenComplete { [self] _ in
            _ = open.withLock { $0.entries.removeValue(forKey: id) }
        }
        return true
    }

    private static func oldestIdle(_ entries: [ObjectIdentifier: Entry]) -> ObjectIdentifier? {
        entries.filter { $0.value.activity.isIdle }.min { $0.value.admitted < $1.value.admitted }?.key
    }

    func closeAll() {
        let channels = open.withLock { $0.entries.values.map(\.channel) }
        for channel in channels { channel.close(promise: nil) }
    }
}

/// Whether a connection is answering a request now (set by `IdleConnectionCloser` on its event
/// loop, read by the registry when it needs room).
final class ConnectionActivity: Sendable {
    private let answering = Atomic<Int>(0)

    var isIdle: Bool { answering.load(ordering: .relaxed) == 0 }

    func set(answering count: Int) { answering.store(count, ordering: .relaxed) }
}
