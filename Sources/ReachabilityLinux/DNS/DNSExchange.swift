import Glibc
import ReachabilityCore

/// One server's turn at a lookup: a UDP socket to it (bound to the interface unless the server
/// is on loopback), one query per record type sent at once, and the answers read until each
/// query has one or the deadline passes. Blocking; runs on the thread that asked.
struct DNSExchange {
    /// The largest response read; the rest of a bigger datagram is cut off (and then usually
    /// fails to parse), so a hostile server cannot make us allocate more.
    static let receiveLimit = 4096
    /// A query still unanswered after this long (or half the turn, if shorter) is sent again:
    /// one lost datagram on a lossy Wi-Fi must not fail the lookup.
    static let resendDelay = Duration.seconds(1)

    let server: SocketPeer
    let interface: String

    /// What the turn gave: the answers that came, a socket error, or silence.
    struct Outcome {
        var answers: [DNSRecordType: DNSAnswer] = [:]
        /// Why no query could be sent or no answer read (`nothing listening on port 53`).
        var error: String?
        /// The deadline passed with queries unanswered.
        var timedOut = false
    }

    /// Asks for `types` of `name` (a name ``DNSMessage/query(id:name:type:)`` accepts).
    func run(name: String, types: [DNSRecordType], deadline: ContinuousClock.Instant) -> Outcome {
        let fd: Int32
        switch openSocket() {
        case .success(let descriptor): fd = descriptor
        case .failure(let failure): return Outcome(error: failure.text)
        }
        defer { close(fd) }
        var pending = queries(name: name, types: types)
        if let error = send(pending.values.map(\.message), on: fd) { return Outcome(error: error) }
        var resendAt: ContinuousClock.Instant? = .now + min((deadline - .now) / 2, Self.resendDelay)
        var answers: [DNSRecordType: DNSAnswer] = [:]
        var buffer = [UInt8](repeating: 0, count: Self.receiveLimit)
        while !pending.isEmpty {
            let now = ContinuousClock.now
            guard now < deadline else { return Outcome(answers: answers, timedOut: true) }
            if let at = resendAt, now >= at {
                resendAt = nil
                if let error = send(pending.values.map(\.message), on: fd) { return Outcome(answers: answers, error: error) }
                continue
            }
            switch receive(on: fd, into: &buffer, until: min(deadline, resendAt ?? deadline)) {
            case .failure(let failure):
                return Outcome(answers: answers, error: failure.text)
            case .success(nil):
                continue
            case .success(let datagram?):
                // Anything that is not an answer to a pending query (a stray, a late duplicate,
                // a forgery with a guessed port) is dropped, and the wait goes on.
                guard datagram.count >= 2 else { continue }
                let id = UInt16(datagram[0]) << 8 | UInt16(datagram[1])
                guard let query = pending.removeValue(forKey: id) else { continue }
                answers[query.type] = DNSMessage.answer(datagram, id: id, name: name, type: query.type)
            }
        }
        return Outcome(answers: answers)
    }

    /// One query per type, under distinct random ids.
    private func queries(name: String, types: [DNSRecordType]) -> [UInt16: (type: DNSRecordType, message: [UInt8])] {
        var generator = SystemRandomNumberGenerator()
        var pending: [UInt16: (type: DNSRecordType, message: [UInt8])] = [:]
        for type in types {
            var id = UInt16.random(in: .min ... .max, using: &generator)
            while pending[id] != nil { id = UInt16.random(in: .min ... .max, using: &generator) }
            // The caller checked that the name encodes; a failure here only drops the type.
            if let message = try? DNSMessage.query(id: id, name: name, type: type) { pending[id] = (type, message) }
        }
        return pending
    }

    /// A socket error, for the failure text.
    struct Failure: Error {
        var text: String
        init(_ step: String, _ code: Int32) { text = "\(step): \(String(cString: strerror(code)))" }
        init(text: String) { self.text = text }
    }

    /// A non-blocking UDP socket bound to the interface (unless the server is on loopback), to
    /// a random source port, and connected to the server: the kernel then delivers only the
    /// server's datagrams, and reports an ICMP error (nothing listening) on the next read.
    private func openSocket() -> Result<Int32, Failure> {
        let fd = socket(server.family, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { return .failure(Failure("cannot open a socket", errno)) }
        if !server.isLoopback, let code = bindToDevice(fd, interface) {
            close(fd)
            return .failure(Failure("cannot bind to \(interface)", code))
        }
        guard server.withWildcardAddress({ bind(fd, $0, $1) }) == 0 else {
            let code = errno
            close(fd)
            return .failure(Failure("cannot bind a source port", code))
        }
        guard server.withSocketAddress({ connect(fd, $0, $1) }) == 0 else {
            let code = errno
            close(fd)
            return .failure(Failure(server.isLoopback ? "cannot reach it" : "cannot reach it over \(interface)", code))
        }
        return .success(fd)
    }

    private func send(_ messages: [[UInt8]], on fd: Int32) -> String? {
        for message in messages {
            let sent = message.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent < 0 { return Self.describe(errno, step: "cannot send") }
        }
        return nil
    }

    /// Waits (with `poll`) until a datagram can be read or `until` passes, and reads it:
    /// `nil` when none came in time (or a signal interrupted the wait).
    private func receive(on fd: Int32, into buffer: inout [UInt8], until: ContinuousClock.Instant) -> Result<[UInt8]?, Failure> {
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let ready = poll(&entry, 1, Self.milliseconds(until - .now))
        if ready < 0 { return errno == EINTR ? .success(nil) : .failure(Failure("cannot wait for an answer", errno)) }
        guard ready > 0 else { return .success(nil) }
        var source = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let count = buffer.withUnsafeMutableBytes { raw in
            withUnsafeMutablePointer(to: &source) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { recvfrom(fd, raw.baseAddress, raw.count, 0, $0, &length) }
            }
        }
        if count < 0 {
            let code = errno
            if code == EAGAIN || code == EWOULDBLOCK || code == EINTR { return .success(nil) }
            return .failure(Failure(text: Self.describe(code, step: "cannot receive")))
        }
        guard server.isSource(source) else { return .success(nil) }
        return .success(Array(buffer[0..<min(count, buffer.count)]))
    }

    /// The text of a send or receive error; an ICMP port unreachable gets plain words.
    static func describe(_ code: Int32, step: String) -> String {
        code == ECONNREFUSED ? "nothing listening on port 53 (port unreachable)" : "\(step): \(String(cString: strerror(code)))"
    }

    /// A `poll` timeout: `duration` rounded up to whole milliseconds, 0 if past.
    static func milliseconds(_ duration: Duration) -> Int32 {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0, seconds > 0 || attoseconds > 0 else { return 0 }
        guard seconds < Int64(Int32.max / 1000) else { return Int32.max }
        return Int32(seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000)
    }
}
