// `package`: the init takes a CNetlink type, and tests and fuzz targets call it.
package import CNetlink
import Glibc
import ReachabilityCore

/// The parts of an `RTM_NEWROUTE` message the monitor needs, parsed from the raw attributes
/// (libnl's route objects merge routes that differ only by interface, so they are not used).
package struct RouteMessage {
    package var family: Int32
    package var destinationLength: Int
    package var type: UInt8
    package var table: UInt32
    package var flags: UInt32
    package var metric: UInt32 = 0
    package var preferredSource: String?
    /// One entry per next hop: a plain route has one, an ECMP route (`RTA_MULTIPATH`) several.
    package var nextHops: [(interfaceIndex: Int32, gateway: String?)] = []

    package static let unicast: UInt8 = 1
    /// `RTN_LOCAL`: the destination is one of this host's addresses.
    package static let local: UInt8 = 2

    package var isDefault: Bool { destinationLength == 0 }
    package var isClone: Bool { flags & UInt32(reach_rtm_f_cloned) != 0 }
    var addressFamily: AddressFamily? { family == AF_INET ? .ipv4 : (family == AF_INET6 ? .ipv6 : nil) }

    /// Parses a route message; nil for anything that is not a route.
    package init?(_ header: UnsafeMutablePointer<nlmsghdr>) {
        let type = Int32(header.pointee.nlmsg_type)
        guard type == reach_rtm_newroute || type == reach_rtm_delroute else { return nil }
        let headerLength = Self.align(MemoryLayout<nlmsghdr>.size)
        let bodyLength = Self.align(MemoryLayout<rtmsg>.size)
        guard Int(header.pointee.nlmsg_len) >= headerLength + bodyLength else { return nil }
        let base = UnsafeMutableRawPointer(header)
        let route = (base + headerLength).assumingMemoryBound(to: rtmsg.self).pointee
        family = Int32(route.rtm_family)
        destinationLength = Int(route.rtm_dst_len)
        self.type = route.rtm_type
        table = UInt32(route.rtm_table)
        flags = route.rtm_flags

        var remaining = Int32(Int(header.pointee.nlmsg_len) - headerLength - bodyLength)
        var attribute: UnsafeMutablePointer<rtattr>? = (base + headerLength + bodyLength).assumingMemoryBound(to: rtattr.self)
        var oif: Int32?
        var gateway: String?
        if reach_rta_ok(attribute, remaining) == 0 { attribute = nil }
        while let current = attribute {
            let data = reach_rta_data(current)!
            let payload = Int(reach_rta_payload(current))
            switch Int32(current.pointee.rta_type) {
            case reach_rta_oif where payload >= 4: oif = data.load(as: Int32.self)
            case reach_rta_priority where payload >= 4: metric = data.load(as: UInt32.self)
            case reach_rta_table where payload >= 4: table = data.load(as: UInt32.self)
            case reach_rta_gateway: gateway = Self.address(data, length: payload, family: family)
            case reach_rta_prefsrc: preferredSource = Self.address(data, length: payload, family: family)
            case reach_rta_multipath: nextHops = Self.nextHops(data, length: payload, family: family)
            default: break
            }
            attribute = reach_rta_next(current, &remaining)
        }
        if nextHops.isEmpty, let oif { nextHops = [(oif, gateway)] }
    }

    private static func nextHops(_ data: UnsafeMutableRawPointer, length: Int, family: Int32) -> [(Int32, String?)] {
        var hops: [(Int32, String?)] = []
        var remaining = Int32(length)
        guard remaining >= Int32(MemoryLayout<rtnexthop>.size) else { return [] }
        let first = data.assumingMemoryBound(to: rtnexthop.self)
        // reach_rtnh_next checks that each later hop fits; the first needs the same check, or
        // its attribute walk runs past RTA_MULTIPATH (and past the message).
        let firstLength = Int(first.pointee.rtnh_len)
        guard firstLength >= MemoryLayout<rtnexthop>.size, firstLength <= length else { return [] }
        var hop: UnsafeMutablePointer<rtnexthop>? = first
        while let current = hop {
            var gateway: String?
            var attrRemaining = reach_rtnh_attrs_len(current)
            var attribute: UnsafeMutablePointer<rtattr>? = reach_rtnh_attrs(current)
            if reach_rta_ok(attribute, attrRemaining) == 0 { attribute = nil }
            while let attr = attribute {
                if Int32(attr.pointee.rta_type) == reach_rta_gateway {
                    gateway = address(reach_rta_data(attr)!, length: Int(reach_rta_payload(attr)), family: family)
                }
                attribute = reach_rta_next(attr, &attrRemaining)
            }
            hops.append((current.pointee.rtnh_ifindex, gateway))
            hop = reach_rtnh_next(current, &remaining)
        }
        return hops
    }

    private static func address(_ data: UnsafeMutableRawPointer, length: Int, family: Int32) -> String? {
        guard length == (family == AF_INET ? 4 : 16) else { return nil }
        return IPAddressText.format(data, family: family)
    }

    static func align(_ length: Int) -> Int { (length + 3) & ~3 }
}
