import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A plain socket speaking HTTP/1.1 byte for byte: for what a real client never sends
/// (malformed requests, pipelining, oversized bodies) and for watching a response arrive chunk
/// by chunk. Reads give up after 20 s, which only bounds a broken test.
final class RawHTTPConnection: Sendable {
    private let descriptor: Int32
    /// Bytes read past the end of what the last call consumed.
    private let buffered = Mutex<[UInt8]>([])

    private init(descriptor: Int32) {
        self.descriptor = descriptor
        var timeout = timeval(tv_sec: 20, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { Glibc.close(descriptor) }

    static func unix(_ path: String) async throws -> RawHTTPConnection {
        try await onOwnThread {
            let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8)) }
            let result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
            guard result == 0 else {
                let message = String(cString: strerror(errno))
                Glibc.close(descriptor)
                throw TestFailure("connect \(path): \(message)")
            }
            return RawHTTPConnection(descriptor: descriptor)
        }
    }

    static func tcp(port: Int) async throws -> RawHTTPConnection {
        try await onOwnThread {
            let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            address.sin_addr.s_addr = in_addr_t(UInt32(0x7F00_0001).bigEndian)
            let result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard result == 0 else {
                let message = String(cString: strerror(errno))
                Glibc.close(descriptor)
                throw TestFailure("connect 127.0.0.1:\(port): \(message)")
            }
            return RawHTTPConnection(descriptor: descriptor)
        }
    }

    func send(_ text: String) async throws {
        try await send(Array(text.utf8))
    }

    func send(_ bytes: [UInt8]) async throws {
        let descriptor = descriptor
        try await onOwnThread {
            var offset = 0
            while offset < bytes.count {
                let written = bytes[offset...].withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                guard written > 0 else { throw TestFailure("send: \(String(cString: strerror(errno)))") }
                offset += written
            }
        }
    }

    /// Closes the connection (the server sees the client go away).
    func shutdown() {
        Glibc.shutdown(descriptor, Int32(SHUT_RDWR))
    }

    /// Everything until the server closes the connection.
    func readToEnd() async throws -> [UInt8] {
        var all = takeBuffered()
        while let bytes = try await readSome() { all += bytes }
        return all
    }

    /// Exactly `count` bytes; throws if the connection ends first.
    func read(count: Int) async throws -> [UInt8] {
        var bytes = takeBuffered()
        while bytes.count < count {
            guard let more = try await readSome() else { throw TestFailure("connection closed after \(bytes.count) of \(count) bytes") }
            bytes += more
        }
        putBack(Array(bytes[count...]))
        return Array(bytes[..<count])
    }

    /// The bytes up to and including `delimiter`; nil when the connection ends before any byte.
    func read(through delimiter: [UInt8]) async throws -> [UInt8]? {
        var bytes = takeBuffered()
        while true {
            if let range = bytes.firstRange(of: delimiter) {
                putBack(Array(bytes[range.upperBound...]))
                return Array(bytes[..<range.upperBound])
            }
            guard let more = try await readSome() else {
                if bytes.isEmpty { return nil }
                throw TestFailure("connection closed inside a message: \(String(decoding: bytes, as: UTF8.self))")
            }
            bytes += more
        }
    }

    /// One `recv`; nil at end of stream.
    private func readSome() async throws -> [UInt8]? {
        let descriptor = descriptor
        return try await onOwnThread {
            var buffer = [UInt8](repeating: 0, count: 65536)
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count == 0 { return nil }
            // A reset after the server closed with our data unread is an end, too.
            if count < 0 && errno == ECONNRESET { return nil }
            guard count > 0 else { throw TestFailure("recv: \(String(cString: strerror(errno)))") }
            return Array(buffer[..<count])
        }
    }

    private func takeBuffered() -> [UInt8] {
        buffered.withLock { bytes in
            defer { bytes = [] }
            return bytes
        }
    }

    private func putBack(_ bytes: [UInt8]) {
        buffered.withLock { $0 = bytes + $0 }
    }
}
