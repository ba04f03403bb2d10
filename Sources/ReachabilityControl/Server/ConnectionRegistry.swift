import NIOCore
import Synchronization

/// The server's open connections: admits new ones up to the limit, and closes them all when
/// the server stops, including any accepted but not yet picked up by the accept loop.
final class ConnectionRegistry: Sendable {
    private let limit: Int
    private let open = Mutex<[ObjectIdentifier: any Channel]>([:])

    init(limit: Int) {
        self.limit = max(1, limit)
    }

    /// Registers `channel` until it closes; false (and the channel is closed) when the server
    /// already has as many connections as it serves.
    func admit(_ channel: any Channel) -> Bool {
        let id = ObjectIdentifier(channel)
        let admitted = open.withLock { open in
            guard open.count < limit else { return false }
            open[id] = channel
            return true
        }
        guard admitted else {
            channel.close(promise: nil)
            return false
        }
        channel.closeFuture.whenComplete { [self] _ in
            _ = open.withLock { $0.removeValue(forKey: id) }
        }
        return true
    }

    func closeAll() {
        let channels = open.withLock { Array($0.values) }
        for channel in channels { channel.close(promise: nil) }
    }
}
