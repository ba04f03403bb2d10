/// The attributes of one netlink message body (`struct nlattr` TLVs: 16-bit length, 16-bit
/// type, payload padded to 4 bytes), read from bytes with every length checked against what
/// is left. A malformed attribute ends the walk; what was read before it is kept.
///
/// Pure bytes, so nl80211's answers can be table-tested and fuzzed without a kernel.
package struct NetlinkAttributes: Sendable {
    /// Payloads by attribute type (nested and byte-order flags masked off); the first of a
    /// repeated type wins.
    package private(set) var payloads: [UInt16: ArraySlice<UInt8>] = [:]

    /// Flags the kernel may set in the type field (`NLA_F_NESTED`, `NLA_F_NET_BYTEORDER`).
    static let typeMask: UInt16 = 0x3FFF
    /// At most this many attributes are kept per level: a message cannot make a table grow without bound.
    static let limit = 512

    /// Walks `bytes` as a sequence of attributes.
    package init<Bytes: Collection<UInt8>>(_ bytes: Bytes) where Bytes.Index == Int {
        var offset = bytes.startIndex
        var count = 0
        while bytes.endIndex - offset >= 4, count < Self.limit {
            let length = Int(Self.uint16(bytes, offset))
            let type = Self.uint16(bytes, offset + 2) & Self.typeMask
            guard length >= 4, length <= bytes.endIndex - offset else { return }
            if payloads[type] == nil { payloads[type] = ArraySlice(bytes[(offset + 4)..<(offset + length)]) }
            count += 1
            // The last attribute's padding may be missing: stop at the end rather than past it.
            offset += min((length + 3) & ~3, bytes.endIndex - offset)
        }
    }

    /// The payload of attribute `type`, if present.
    package subscript(_ type: UInt16) -> ArraySlice<UInt8>? { payloads[type] }

    /// The nested attributes inside attribute `type`.
    package func nested(_ type: UInt16) -> NetlinkAttributes? { payloads[type].map { NetlinkAttributes($0) } }

    /// A native-endian (little-endian on every host we build for) unsigned value of 1, 2, 4 or 8 bytes.
    package func unsigned(_ type: UInt16) -> UInt64? {
        guard let payload = payloads[type], [1, 2, 4, 8].contains(payload.count) else { return nil }
        var value: UInt64 = 0
        for (shift, byte) in payload.enumerated() { value |= UInt64(byte) << (8 * UInt64(shift)) }
        return value
    }

    /// A 32-bit signed value (`s32` attributes such as a signal in mBm).
    package func int32(_ type: UInt16) -> Int32? {
        guard let payload = payloads[type], payload.count == 4, let raw = unsigned(type) else { return nil }
        return Int32(bitPattern: UInt32(truncatingIfNeeded: raw))
    }

    private static func uint16<Bytes: Collection<UInt8>>(_ bytes: Bytes, _ at: Int) -> UInt16 where Bytes.Index == Int {
        UInt16(bytes[at]) | UInt16(bytes[at + 1]) << 8
    }
}
