internal import CNetlink
import Glibc
import ReachabilityCore

/// Turns a host name or address literal into addresses, via `getaddrinfo` (the system
/// resolver: `/etc/hosts`, then DNS).
public enum HostResolver {
    /// At most one address per family, IPv4 first. A literal resolves to itself, without DNS.
    public static func addresses(of host: String) throws(ResolutionError) -> [String] {
        if IPPrefix.parse(host) != nil { return [host] }
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var result: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, nil, &hints, &result)
        guard status == 0, let first = result else {
            throw ResolutionError(host: host, reason: String(cString: gai_strerror(status)))
        }
        defer { freeaddrinfo(first) }
        var byFamily: [Int32: String] = [:]
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let current = entry {
            let family = current.pointee.ai_family
            if byFamily[family] == nil, let address = current.pointee.ai_addr {
                if family == AF_INET {
                    address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { pointer in
                        var raw = pointer.pointee.sin_addr
                        byFamily[family] = IPAddressText.format(&raw, family: family)
                    }
                } else if family == AF_INET6 {
                    address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { pointer in
                        var raw = pointer.pointee.sin6_addr
                        byFamily[family] = IPAddressText.format(&raw, family: family)
                    }
                }
            }
            entry = current.pointee.ai_next
        }
        return [byFamily[AF_INET], byFamily[AF_INET6]].compactMap { $0 }
    }
}

/// A host name that does not resolve.
public struct ResolutionError: Error, Sendable, Hashable, CustomStringConvertible {
    public var host: String
    public var reason: String
    public var description: String { "cannot resolve '\(host)': \(reason)" }

    public init(host: String, reason: String) {
        self.host = host
        self.reason = reason
    }
}
