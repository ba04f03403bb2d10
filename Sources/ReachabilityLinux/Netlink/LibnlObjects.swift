internal import CNetlink
import Glibc
import ReachabilityCore

/// Converts libnl `rtnl_link` and `rtnl_addr` objects into value types.
enum LibnlObjects {
    static let linkType = "route/link"
    static let addressType = "route/addr"

    static func typeName(_ object: OpaquePointer) -> String {
        nl_object_get_type(object).map { String(cString: $0) } ?? ""
    }

    /// The link's facts from netlink alone, or nil for the per-family objects libnl keeps
    /// beside the real link (they are never deleted and must be ignored).
    static func interfaceFacts(link: OpaquePointer) -> InterfaceFacts? {
        guard rtnl_link_get_family(link) == AF_UNSPEC else { return nil }
        let index = Int32(rtnl_link_get_ifindex(link))
        guard index > 0, let namePointer = rtnl_link_get_name(link) else { return nil }
        let master = Int32(rtnl_link_get_master(link))
        let kind = rtnl_link_get_type(link).map { String(cString: $0) }
        // IFLA_LINK is a lower device for VLANs and tunnels, but the peer for a veth, and an
        // index in another namespace when IFLA_LINK_NETNSID is set: neither is a parent.
        var peerNamespace: Int32 = 0
        let otherNamespace = rtnl_link_get_link_netnsid(link, &peerNamespace) == 0
        let parent = kind.map(peerKinds.contains) == true || otherNamespace ? 0 : Int32(rtnl_link_get_link(link))
        let mac = rtnl_link_get_addr(link).flatMap(macAddressText)
        return InterfaceFacts(
            name: String(cString: namePointer), index: index,
            flags: LinkFlags(rawValue: rtnl_link_get_flags(link)),
            operationalState: OperationalState(kernelValue: rtnl_link_get_operstate(link)),
            hardwareType: UInt16(truncatingIfNeeded: rtnl_link_get_arptype(link)),
            kind: kind,
            masterIndex: master > 0 ? master : nil,
            parentIndex: parent > 0 && parent != index ? parent : nil,
            macAddress: mac)
    }

    /// The link's byte counters (libnl reads them from `IFLA_STATS64` when the kernel sends it),
    /// or nil for the per-family objects.
    static func counters(link: OpaquePointer, removed: Bool = false) -> InterfaceCounters? {
        guard rtnl_link_get_family(link) == AF_UNSPEC else { return nil }
        let index = Int32(rtnl_link_get_ifindex(link))
        guard index > 0, let namePointer = rtnl_link_get_name(link) else { return nil }
        return InterfaceCounters(
            index: index, name: String(cString: namePointer), receivedBytes: rtnl_link_get_stat(link, RTNL_LINK_RX_BYTES),
            sentBytes: rtnl_link_get_stat(link, RTNL_LINK_TX_BYTES), isRemoved: removed,
            hardwareAddress: rtnl_link_get_addr(link).flatMap(macAddressText))
    }

    /// Kinds whose IFLA_LINK names a peer rather than a lower device.
    private static let peerKinds: Set<String> = ["veth", "netkit", "vxcan"]

    static func macAddressText(_ address: OpaquePointer) -> String? {
        let length = Int(nl_addr_get_len(address))
        guard length == 6, let bytes = nl_addr_get_binary_addr(address) else { return nil }
        let raw = bytes.assumingMemoryBound(to: UInt8.self)
        return (0..<length).map { byte in
            let hex = String(raw[byte], radix: 16)
            return hex.count == 1 ? "0" + hex : hex
        }.joined(separator: ":")
    }

    static func interfaceAddress(_ object: OpaquePointer) -> InterfaceAddress? {
        let family = rtnl_addr_get_family(object)
        guard family == AF_INET || family == AF_INET6, let local = rtnl_addr_get_local(object),
            let text = IPAddressText.format(local)
        else { return nil }
        let scope: InterfaceAddress.Scope =
            switch rtnl_addr_get_scope(object) {
            case 0: .global
            case 200: .site
            case 253: .link
            default: .host
            }
        let flags = rtnl_addr_get_flags(object)
        let unusable = flags & UInt32(IFA_F_TENTATIVE | IFA_F_DADFAILED) != 0
        return InterfaceAddress(
            interfaceIndex: Int32(rtnl_addr_get_ifindex(object)), family: family == AF_INET ? .ipv4 : .ipv6,
            address: text, prefixLength: Int(rtnl_addr_get_prefixlen(object)), scope: scope, isTentativeOrFailed: unusable)
    }

    /// Calls `body` for each object of a cache.
    static func forEach(_ cache: OpaquePointer, _ body: (OpaquePointer) -> Void) {
        withoutActuallyEscaping(body) { escapable in
            let box = ForEachBox(body: escapable)
            let context = Unmanaged.passUnretained(box).toOpaque()
            nl_cache_foreach(cache, { object, context in
                guard let object, let context else { return }
                Unmanaged<ForEachBox>.fromOpaque(context).takeUnretainedValue().body(object)
            }, context)
        }
    }

    private final class ForEachBox {
        let body: (OpaquePointer) -> Void
        init(body: @escaping (OpaquePointer) -> Void) { self.body = body }
    }
}
