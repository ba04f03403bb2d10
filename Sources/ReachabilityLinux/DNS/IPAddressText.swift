internal import CNetlink
import Glibc

/// Raw address bytes as text, via `inet_ntop` (text is parsed by Core's `IPPrefix.parse`).
enum IPAddressText {
    static func format(_ bytes: UnsafeRawPointer, family: Int32) -> String {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        guard inet_ntop(family, bytes, &buffer, socklen_t(buffer.count)) != nil else { return "?" }
        let bytes = buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        return String(decoding: bytes, as: UTF8.self)
    }

    static func format(_ address: OpaquePointer) -> String? {
        let family = nl_addr_get_family(address)
        guard family == AF_INET || family == AF_INET6, let bytes = nl_addr_get_binary_addr(address),
            nl_addr_get_len(address) == (family == AF_INET ? 4 : 16)
        else { return nil }
        return format(bytes, family: family)
    }
}
