internal import CNetlink
import Glibc
import ReachabilityCore

/// The socket address of a peer a probe or a DNS query goes to, from its text: an IPv4 or IPv6
/// literal, optionally in brackets, optionally with a zone (`fe80::1%wlan0`), which is dropped:
/// a link-local peer is scoped to the interface the socket is bound to instead.
struct SocketPeer {
    let family: Int32
    let port: UInt16
    let bytes: [UInt8]
    /// The index of the interface a link-local IPv6 server is reached through; 0 otherwise.
    let scopeID: UInt32

    /// `nil` when `text` is not an address literal. Looks up `interface` (in the calling
    /// thread's namespace) only for a link-local IPv6 server.
    init?(_ text: String, port: UInt16, interface: String) {
        var literal = Substring(text)
        if literal.first == "[", literal.last == "]" { literal = literal.dropFirst().dropLast() }
        literal = literal.prefix { $0 != "%" }
        guard let parsed = IPPrefix.parse(String(literal)) else { return nil }
        family = parsed.family == .ipv4 ? AF_INET : AF_INET6
        self.port = port
        bytes = parsed.bytes
        let linkLocal = parsed.family == .ipv6 && bytes[0] == 0xFE && bytes[1] & 0xC0 == 0x80
        scopeID = linkLocal ? if_nametoindex(interface) : 0
    }

    /// 127.0.0.0/8, `::1` or an IPv4-mapped 127/8: a peer on this host (a stub resolver routes
    /// queries by itself), so a socket to it is not bound to a device (that would miss `lo`).
    var isLoopback: Bool {
        if family == AF_INET { return bytes[0] == 127 }
        if bytes == [UInt8](repeating: 0, count: 15) + [1] { return true }
        return bytes[0..<10].allSatisfy { $0 == 0 } && bytes[10] == 0xFF && bytes[11] == 0xFF && bytes[12] == 127
    }

    /// Calls `body` with the server's `sockaddr` and its length.
    func withSocketAddress<T>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> T) -> T {
        var storage = sockaddr_storage()
        let length = withUnsafeMutableBytes(of: &storage) { raw -> Int in
            if family == AF_INET {
                var address = sockaddr_in()
                address.sin_family = sa_family_t(AF_INET)
                address.sin_port = port.bigEndian
                withUnsafeMutableBytes(of: &address.sin_addr) { $0.copyBytes(from: bytes) }
                raw.storeBytes(of: address, as: sockaddr_in.self)
                return MemoryLayout<sockaddr_in>.size
            }
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = port.bigEndian
            address.sin6_scope_id = scopeID
            withUnsafeMutableBytes(of: &address.sin6_addr) { $0.copyBytes(from: bytes) }
            raw.storeBytes(of: address, as: sockaddr_in6.self)
            return MemoryLayout<sockaddr_in6>.size
        }
        return withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(length)) }
        }
    }

    /// Calls `body` with the wildcard address of the server's family on port 0, for `bind`:
    /// the kernel then picks a random source port.
    func withWildcardAddress<T>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> T) -> T {
        var storage = sockaddr_storage()
        storage.ss_family = sa_family_t(family)
        let length = family == AF_INET ? MemoryLayout<sockaddr_in>.size : MemoryLayout<sockaddr_in6>.size
        return withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(length)) }
        }
    }

    /// Whether a datagram's source is this peer, on its port.
    func isSource(_ storage: sockaddr_storage) -> Bool {
        guard Int32(storage.ss_family) == family else { return false }
        return withUnsafeBytes(of: storage) { raw in
            if family == AF_INET {
                let address = raw.loadUnaligned(as: sockaddr_in.self)
                return UInt16(bigEndian: address.sin_port) == port && withUnsafeBytes(of: address.sin_addr) { Array($0) == bytes }
            }
            let address = raw.loadUnaligned(as: sockaddr_in6.self)
            return UInt16(bigEndian: address.sin6_port) == port && withUnsafeBytes(of: address.sin6_addr) { Array($0) == bytes }
        }
    }
}

/// `SO_BINDTODEVICE`: a socket that sends and receives only through `interface`. Returns the
/// error number when the name is not a valid interface name or the kernel refuses.
func bindToDevice(_ fd: Int32, _ interface: String) -> Int32? {
    let name = Array(interface.utf8)
    // IFNAMSIZ (16, with the terminating NUL): <net/if.h> is not visible in every build (fuzzing).
    guard !name.isEmpty, name.count < 16, !name.contains(0) else { return EINVAL }
    guard setsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE, name, socklen_t(name.count)) == 0 else { return errno }
    return nil
}
