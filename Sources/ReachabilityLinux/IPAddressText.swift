internal import CNetlink
import Glibc

/// Conversions between raw address bytes and text, via `inet_ntop` / `inet_pton`.
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

    /// The bytes of `text` as an address of either family.
    static func parse(_ text: String) -> (family: Int32, bytes: [UInt8])? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            return (AF_INET, withUnsafeBytes(of: &v4) { Array($0) })
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 {
            return (AF_INET6, withUnsafeBytes(of: &v6) { Array($0) })
        }
        return nil
    }
}

