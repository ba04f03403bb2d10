// `package`: `ruleMark` takes a CNetlink type, and tests and fuzz targets call it.
package import CNetlink
import Glibc
import ReachabilityCore

/// Default-route dumps and `RTM_GETROUTE` lookups on a dedicated blocking socket.
///
/// Default routes come from a fresh dump every time, never from libnl's route cache, whose
/// object identity ignores the interface (two same-metric defaults on different links collapse
/// into one object there).
package final class RouteQueries {
    private let socket: NetlinkSocket
    private var collected: [RouteMessage] = []
    private var collectedRules: [(priority: UInt32, mark: UInt32)] = []

    init() throws(NetlinkError) {
        socket = try NetlinkSocket(operation: "connect route query socket")
        SocketOptions.enableStrictChecking(fileDescriptor: socket.fileDescriptor)
        // libnl asks for an ACK on every request by default; a lookup's reply would then leave
        // the ACK queued and every later request would read the previous one's answer.
        nl_socket_disable_auto_ack(socket.handle)
        socket.onValidMessage({ message, context in
            guard let message, let context, let header = nlmsg_hdr(message) else { return Int32(NL_OK.rawValue) }
            let queries = Unmanaged<RouteQueries>.fromOpaque(context).takeUnretainedValue()
            if let route = RouteMessage(header) {
                queries.collected.append(route)
            } else if let rule = RouteQueries.ruleMark(header) {
                queries.collectedRules.append(rule)
            }
            return Int32(NL_OK.rawValue)
        }, target: self)
    }

    /// Every unicast default route of both families in every table, one entry per next hop.
    func defaultRoutes() throws(NetlinkError) -> [DefaultRoute] {
        var routes: [DefaultRoute] = []
        // One AF_UNSPEC dump answers for both families in one round trip.
        for route in try dump(family: AF_UNSPEC) where route.isDefault && route.type == RouteMessage.unicast && !route.isClone {
            guard let addressFamily = route.addressFamily else { continue }
            for hop in route.nextHops where hop.interfaceIndex > 0 {
                routes.append(DefaultRoute(
                    family: addressFamily, interfaceIndex: hop.interfaceIndex, metric: route.metric,
                    table: route.table, gateway: hop.gateway))
            }
        }
        return routes
    }

    /// The firewall marks that policy rules of either family test, in rule priority order.
    func ruleMarks() throws(NetlinkError) -> [UInt32] {
        _ = try dump(family: AF_UNSPEC, type: reach_rtm_getrule)
        let rules = collectedRules
        var seen = Set<UInt32>()
        return rules.sorted { $0.priority < $1.priority }.map(\.mark).filter { seen.insert($0).inserted }
    }

    /// The mark of an `RTM_NEWRULE` message that tests one (`fwmark X` or `not fwmark X`).
    package static func ruleMark(_ header: UnsafeMutablePointer<nlmsghdr>) -> (UInt32, UInt32)? {
        guard Int32(header.pointee.nlmsg_type) == reach_rtm_newrule else { return nil }
        let headerLength = RouteMessage.align(MemoryLayout<nlmsghdr>.size)
        let bodyLength = RouteMessage.align(MemoryLayout<fib_rule_hdr>.size)
        guard Int(header.pointee.nlmsg_len) >= headerLength + bodyLength else { return nil }
        var remaining = Int32(Int(header.pointee.nlmsg_len) - headerLength - bodyLength)
        var attribute: UnsafeMutablePointer<rtattr>? = (UnsafeMutableRawPointer(header) + headerLength + bodyLength).assumingMemoryBound(to: rtattr.self)
        if reach_rta_ok(attribute, remaining) == 0 { attribute = nil }
        var mark: UInt32?
        var priority: UInt32 = 0
        while let current = attribute {
            let payload = reach_rta_payload(current)
            if payload >= 4 {
                let value = reach_rta_data(current)!.load(as: UInt32.self)
                switch Int32(current.pointee.rta_type) {
                case reach_fra_fwmark: mark = value
                case reach_fra_priority: priority = value
                default: break
                }
            }
            attribute = reach_rta_next(current, &remaining)
        }
        guard let mark, mark != 0 else { return nil }
        return (priority, mark)
    }

    private func dump(family: Int32, type: Int32 = reach_rtm_getroute) throws(NetlinkError) -> [RouteMessage] {
        // A dump interrupted by a concurrent change (NLE_DUMP_INTR) is inconsistent: retry it.
        for _ in 0..<5 {
            collected.removeAll(keepingCapacity: true)
            collectedRules.removeAll(keepingCapacity: true)
            var request = rtmsg()
            request.rtm_family = UInt8(family)
            let sent = nl_send_simple(socket.handle, type, NLM_F_DUMP, &request, MemoryLayout<rtmsg>.size)
            guard sent >= 0 else { throw NetlinkError("dump routes", libnl: sent) }
            let received = nl_recvmsgs_default(socket.handle)
            if received == -NLE_DUMP_INTR { continue }
            guard received >= 0 else { throw NetlinkError("dump routes", libnl: received) }
            return collected
        }
        throw NetlinkError("dump routes", libnl: NLE_DUMP_INTR)
    }

    /// The kernel's route towards `destination`, honouring policy routing; `mark` sets the
    /// firewall mark of the imagined packet. Nil when the kernel has no route.
    func lookup(_ destination: String, mark: UInt32? = nil) -> RouteLookup? {
        guard let (addressFamily, bytes) = IPPrefix.parse(destination), let message = nlmsg_alloc_simple(reach_rtm_getroute, NLM_F_REQUEST)
        else { return nil }
        defer { nlmsg_free(message) }
        var request = rtmsg()
        request.rtm_family = UInt8(addressFamily == .ipv4 ? AF_INET : AF_INET6)
        request.rtm_dst_len = UInt8(bytes.count * 8)
        guard nlmsg_append(message, &request, MemoryLayout<rtmsg>.size, NLMSG_ALIGNTO_INT) == 0 else { return nil }
        let put = bytes.withUnsafeBytes { nla_put(message, reach_rta_dst, Int32($0.count), $0.baseAddress) }
        guard put == 0 else { return nil }
        if let mark, nla_put_u32(message, reach_rta_mark, mark) != 0 { return nil }
        collected.removeAll(keepingCapacity: true)
        guard nl_send_auto(socket.handle, message) >= 0, nl_recvmsgs_default(socket.handle) >= 0,
            let route = collected.first, let hop = route.nextHops.first, let addressFamily = route.addressFamily
        else { return nil }
        return RouteLookup(
            family: addressFamily, interfaceIndex: hop.interfaceIndex, gateway: hop.gateway,
            preferredSource: route.preferredSource, table: route.table, mark: mark, destination: destination,
            isLocal: route.type == RouteMessage.local)
    }

    /// Lookups towards `destinations`, then the same with every mark in `marks`.
    func lookups(_ destinations: [String], marks: [UInt32]) -> (plain: [RouteLookup], marked: [RouteLookup]) {
        guard !destinations.isEmpty else { return ([], []) }
        let plain = destinations.compactMap { lookup($0) }
        let marked = marks.flatMap { mark in destinations.compactMap { lookup($0, mark: mark) } }
        return (plain, marked)
    }
}

private let NLMSG_ALIGNTO_INT = Int32(4)
