import Glibc

/// Plays the service manager's side of sd_notify(3) for tests: a bound `AF_UNIX` datagram
/// socket whose ``path`` goes in `NOTIFY_SOCKET`, and whose datagrams are read back as
/// dictionaries (`["READY": "1", "STATUS": "…"]`).
///
/// Reads wait in `poll` for at most the given timeout, which only bounds a broken test.
public final class NotifySocketReceiver: Sendable {
    /// The value for `NOTIFY_SOCKET`: the socket's path, or `@name` for an abstract socket.
    public let path: String
    private let descriptor: Int32
    /// The file to remove at the end, for a socket bound to a path.
    private let file: String?

    /// Binds a socket at `directory/name` (the whole path must fit in 107 bytes).
    public convenience init(directory: String, name: String = "notify.sock") throws {
        let path = directory + "/" + name
        try self.init(path: path, address: Array(path.utf8), file: path)
    }

    /// Binds an abstract socket (no file; Linux only) with a name unique to this test.
    public convenience init() throws {
        try self.init(abstractName: "reach-test-notify-\(getpid())-\(UInt64.random(in: 0 ... .max))")
    }

    /// Binds an abstract socket (no file; Linux only) named `name`; ``path`` is `@name`.
    public convenience init(abstractName name: String) throws {
        try self.init(path: "@" + name, address: [0] + Array(name.utf8), file: nil)
    }

    private init(path: String, address: [UInt8], file: String?) throws {
        var socketAddress = sockaddr_un()
        guard address.count < MemoryLayout.size(ofValue: socketAddress.sun_path) else {
            throw NotifySocketReceiverError(message: "socket address too long: \(path)")
        }
        let descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw NotifySocketReceiverError(message: "socket: \(String(cString: strerror(errno)))") }
        socketAddress.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &socketAddress.sun_path) { $0.copyBytes(from: address) }
        let length = socklen_t((MemoryLayout<sockaddr_un>.offset(of: \.sun_path) ?? 2) + address.count)
        let bound = withUnsafePointer(to: &socketAddress) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) }
        }
        guard bound == 0 else {
            let reason = String(cString: strerror(errno))
            close(descriptor)
            throw NotifySocketReceiverError(message: "bind \(path): \(reason)")
        }
        self.path = path
        self.descriptor = descriptor
        self.file = file
    }

    deinit {
        close(descriptor)
        if let file { unlink(file) }
    }

    /// The next datagram as `KEY=VALUE` pairs (a repeated key keeps its last value), or `nil`
    /// when none arrives within `timeout`.
    public func next(timeout: Duration) -> [String: String]? {
        nextDatagram(timeout: timeout).map(Self.parse)
    }

    /// The next datagram's raw text, or `nil` when none arrives within `timeout`.
    public func nextDatagram(timeout: Duration) -> String? {
        let deadline = ContinuousClock.now + timeout
        var buffer = [UInt8](repeating: 0, count: 65536)
        while waitReadable(until: deadline) {
            let count = recv(descriptor, &buffer, buffer.count, Int32(MSG_DONTWAIT))
            if count >= 0 { return String(decoding: buffer[..<count], as: UTF8.self) }
            guard errno == EAGAIN || errno == EINTR else { return nil }
        }
        return nil
    }

    /// Every datagram received until one satisfies `done` (included, last) or `timeout` passes
    /// (then the last one does not satisfy `done`).
    public func messages(timeout: Duration, until done: ([String: String]) -> Bool) -> [[String: String]] {
        let deadline = ContinuousClock.now + timeout
        var received: [[String: String]] = []
        while let message = next(timeout: deadline - ContinuousClock.now) {
            received.append(message)
            if done(message) { break }
        }
        return received
    }

    /// Whether the socket became readable before `deadline`.
    private func waitReadable(until deadline: ContinuousClock.Instant) -> Bool {
        while true {
            let remaining = deadline - ContinuousClock.now
            guard remaining > .zero else { return false }
            let (seconds, attoseconds) = remaining.components
            // Rounded up, so the last wait does not end just short of the deadline and spin.
            let milliseconds = Int32(clamping: min(seconds, 1_000_000) * 1000 + attoseconds / 1_000_000_000_000_000 + 1)
            var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&entry, 1, milliseconds)
            if ready > 0 { return true }
            if ready < 0 && errno != EINTR { return false }
        }
    }

    /// `KEY=VALUE` lines as a dictionary; lines without `=` are ignored.
    static func parse(_ datagram: String) -> [String: String] {
        var pairs: [String: String] = [:]
        for line in datagram.split(separator: "\n") {
            guard let equals = line.firstIndex(of: "=") else { continue }
            pairs[String(line[..<equals])] = String(line[line.index(after: equals)...])
        }
        return pairs
    }
}

/// A ``NotifySocketReceiver`` could not be set up.
public struct NotifySocketReceiverError: Error, CustomStringConvertible {
    /// What failed, and why.
    public var message: String
    /// The message.
    public var description: String { message }
}
