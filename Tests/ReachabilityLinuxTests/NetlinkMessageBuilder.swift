import CNetlink
import Glibc

// Raw netlink messages as the kernel sends them (native byte order, 4-byte alignment), for
// feeding the route and rule parsers canned input, well-formed or not.

/// One attribute (`struct rtattr` and its payload), padded to 4 bytes when written.
struct RawAttribute: Sendable {
    var type: Int32
    var payload: [UInt8]
    /// `rta_len` to write instead of the true length: a lying attribute.
    var declaredLength: Int?

    init(_ type: Int32, _ payload: [UInt8], declaredLength: Int? = nil) {
        self.type = type
        self.payload = payload
        self.declaredLength = declaredLength
    }

    var bytes: [UInt8] {
        var header = rtattr()
        header.rta_len = UInt16(declaredLength ?? MemoryLayout<rtattr>.size + payload.count)
        header.rta_type = UInt16(type)
        return padded(rawBytes(of: header) + payload)
    }

    static func oif(_ index: Int32) -> Self { Self(reach_rta_oif, rawBytes(of: index)) }
    static func gateway(_ address: String) -> Self { Self(reach_rta_gateway, addressBytes(address)) }
    static func preferredSource(_ address: String) -> Self { Self(reach_rta_prefsrc, addressBytes(address)) }
    static func priority(_ metric: UInt32) -> Self { Self(reach_rta_priority, rawBytes(of: metric)) }
    static func table(_ table: UInt32) -> Self { Self(reach_rta_table, rawBytes(of: table)) }
    static func multipath(_ hops: [RawNextHop]) -> Self { Self(reach_rta_multipath, hops.flatMap(\.bytes)) }
    static func fwmark(_ mark: UInt32) -> Self { Self(reach_fra_fwmark, rawBytes(of: mark)) }
    static func rulePriority(_ priority: UInt32) -> Self { Self(reach_fra_priority, rawBytes(of: priority)) }
}

/// One next hop of `RTA_MULTIPATH` (`struct rtnexthop` and its attributes).
struct RawNextHop: Sendable {
    var interfaceIndex: Int32
    var gateway: String?
    /// `rtnh_len` to write instead of the true length.
    var declaredLength: Int?

    init(_ interfaceIndex: Int32, _ gateway: String? = nil, declaredLength: Int? = nil) {
        self.interfaceIndex = interfaceIndex
        self.gateway = gateway
        self.declaredLength = declaredLength
    }

    var bytes: [UInt8] {
        let attributes = gateway.map { RawAttribute.gateway($0).bytes } ?? []
        var header = rtnexthop()
        header.rtnh_len = UInt16(declaredLength ?? MemoryLayout<rtnexthop>.size + attributes.count)
        header.rtnh_ifindex = interfaceIndex
        return rawBytes(of: header) + attributes
    }
}

/// `RT_TABLE_MAIN`, and `RT_TABLE_COMPAT`: what `rtm_table` says for tables above 255.
let mainTable: UInt8 = 254
let compatTable: UInt8 = 252

/// A whole message: `nlmsghdr`, a fixed body, attributes. `nlmsg_len` is the true length.
func netlinkMessage(type: Int32, body: [UInt8], attributes: [RawAttribute]) -> [UInt8] {
    let payload = padded(body) + attributes.flatMap(\.bytes)
    var header = nlmsghdr()
    header.nlmsg_len = UInt32(MemoryLayout<nlmsghdr>.size + payload.count)
    header.nlmsg_type = UInt16(type)
    header.nlmsg_flags = UInt16(NLM_F_MULTI)
    header.nlmsg_seq = 1
    return rawBytes(of: header) + payload
}

/// An `RTM_NEWROUTE` (or `type`) message: `rtmsg` and attributes.
func routeMessage(
    type: Int32 = reach_rtm_newroute, family: Int32, destinationLength: UInt8 = 0, table: UInt8 = mainTable,
    flags: UInt32 = 0, _ attributes: [RawAttribute]
) -> [UInt8] {
    var route = rtmsg()
    route.rtm_family = UInt8(family)
    route.rtm_dst_len = destinationLength
    route.rtm_table = table
    route.rtm_type = 1  // RTN_UNICAST
    route.rtm_flags = flags
    return netlinkMessage(type: type, body: rawBytes(of: route), attributes: attributes)
}

/// An `RTM_NEWRULE` message: `fib_rule_hdr` and attributes.
func ruleMessage(family: Int32, _ attributes: [RawAttribute]) -> [UInt8] {
    var rule = fib_rule_hdr()
    rule.family = UInt8(family)
    rule.table = mainTable
    rule.action = 1  // FR_ACT_TO_TBL
    return netlinkMessage(type: reach_rtm_newrule, body: rawBytes(of: rule), attributes: attributes)
}

/// The first `length` bytes of `message`, with `nlmsg_len` saying so: what libnl would hand
/// over of a message cut short (it never passes one whose length runs past the buffer).
func truncated(_ message: [UInt8], to length: Int) -> [UInt8] {
    declaring(Array(message.prefix(length)), length: length)
}

/// `message` with `nlmsg_len` set to `length` (at most its size), its bytes unchanged.
func declaring(_ message: [UInt8], length: Int) -> [UInt8] {
    precondition(length <= message.count, "nlmsg_len past the buffer")
    var result = message
    withUnsafeBytes(of: UInt32(length)) { result.replaceSubrange(0..<4, with: $0) }
    return result
}

/// Runs `parse` on a copy of `message`, aligned as the kernel's buffers are.
func withHeader<Result>(_ message: [UInt8], _ parse: (UnsafeMutablePointer<nlmsghdr>) -> Result) -> Result {
    precondition(message.count >= MemoryLayout<nlmsghdr>.size, "shorter than a netlink header")
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: message.count, alignment: MemoryLayout<nlmsghdr>.alignment)
    defer { buffer.deallocate() }
    buffer.copyBytes(from: message)
    return parse(buffer.baseAddress!.bindMemory(to: nlmsghdr.self, capacity: 1))
}

func rawBytes<T>(of value: T) -> [UInt8] { withUnsafeBytes(of: value) { Array($0) } }

private func padded(_ bytes: [UInt8]) -> [UInt8] { bytes + [UInt8](repeating: 0, count: (4 - bytes.count % 4) % 4) }

/// The 4 or 16 bytes of an IPv4 or IPv6 address in text.
func addressBytes(_ text: String) -> [UInt8] {
    var v4 = in_addr()
    if inet_pton(AF_INET, text, &v4) == 1 { return rawBytes(of: v4) }
    var v6 = in6_addr()
    precondition(inet_pton(AF_INET6, text, &v6) == 1, "not an address: \(text)")
    return rawBytes(of: v6)
}
