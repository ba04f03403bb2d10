import CNetlink
import Glibc
import ReachabilityLinux
import Testing

/// What a parsed route message should hold.
struct ExpectedRoute: Sendable, Equatable, CustomStringConvertible {
    var family: Int32
    var destinationLength = 0
    var table = UInt32(mainTable)
    var metric: UInt32 = 0
    var preferredSource: String?
    var nextHops: [Hop] = []
    var isClone = false

    struct Hop: Sendable, Equatable {
        var interfaceIndex: Int32
        var gateway: String?
        init(_ interfaceIndex: Int32, _ gateway: String? = nil) {
            self.interfaceIndex = interfaceIndex
            self.gateway = gateway
        }
    }

    var description: String {
        let hops = nextHops.map { "\($0.interfaceIndex)\($0.gateway.map { " via \($0)" } ?? "")" }
        return "family \(family) /\(destinationLength) table \(table) metric \(metric) src \(preferredSource ?? "-") hops \(hops)"
    }
}

extension ExpectedRoute {
    init(_ route: RouteMessage) {
        self.init(
            family: route.family, destinationLength: route.destinationLength, table: route.table, metric: route.metric,
            preferredSource: route.preferredSource, nextHops: route.nextHops.map { Hop($0.interfaceIndex, $0.gateway) },
            isClone: route.isClone)
    }
}

/// One canned message and what it parses to (`nil`: not a route).
struct RouteMessageCase: Sendable, CustomTestStringConvertible {
    var label: String
    var message: [UInt8]
    var expected: ExpectedRoute?
    var testDescription: String { label }
}

private typealias Hop = ExpectedRoute.Hop

private let routeCases: [RouteMessageCase] = [
    // Well-formed routes, as a dump or a notification carries them.
    RouteMessageCase(
        label: "IPv4 default route from DHCP",
        message: routeMessage(family: AF_INET, [
            .table(254), .priority(600), .preferredSource("192.168.1.23"), .gateway("192.168.1.1"), .oif(2),
        ]),
        expected: ExpectedRoute(
            family: AF_INET, metric: 600, preferredSource: "192.168.1.23", nextHops: [Hop(2, "192.168.1.1")])),
    RouteMessageCase(
        label: "RTM_DELROUTE parses like RTM_NEWROUTE",
        message: routeMessage(type: reach_rtm_delroute, family: AF_INET, [.gateway("10.0.0.1"), .oif(3), .priority(100)]),
        expected: ExpectedRoute(family: AF_INET, metric: 100, nextHops: [Hop(3, "10.0.0.1")])),
    RouteMessageCase(
        label: "RTA_TABLE beats rtm_table (tables above 255)",
        message: routeMessage(family: AF_INET, table: compatTable, [.table(1000), .gateway("100.64.0.1"), .oif(5)]),
        expected: ExpectedRoute(family: AF_INET, table: 1000, nextHops: [Hop(5, "100.64.0.1")])),
    RouteMessageCase(
        label: "rtm_table when there is no RTA_TABLE",
        message: routeMessage(family: AF_INET, table: 100, [.oif(4)]),
        expected: ExpectedRoute(family: AF_INET, table: 100, nextHops: [Hop(4)])),
    RouteMessageCase(
        label: "subnet route: destination length, no gateway",
        message: routeMessage(family: AF_INET, destinationLength: 24, [
            RawAttribute(reach_rta_dst, addressBytes("192.168.1.0")), .preferredSource("192.168.1.23"), .oif(2),
        ]),
        expected: ExpectedRoute(
            family: AF_INET, destinationLength: 24, preferredSource: "192.168.1.23", nextHops: [Hop(2)])),
    RouteMessageCase(
        label: "IPv6 default route via a link-local router",
        message: routeMessage(family: AF_INET6, [.table(254), .priority(1024), .gateway("fe80::1"), .oif(3)]),
        expected: ExpectedRoute(family: AF_INET6, metric: 1024, nextHops: [Hop(3, "fe80::1")])),
    RouteMessageCase(
        label: "IPv6 preferred source",
        message: routeMessage(family: AF_INET6, [.preferredSource("2001:db8::5"), .gateway("2001:db8::1"), .oif(4)]),
        expected: ExpectedRoute(family: AF_INET6, preferredSource: "2001:db8::5", nextHops: [Hop(4, "2001:db8::1")])),
    RouteMessageCase(
        label: "cloned route (RTM_F_CLONED)",
        message: routeMessage(family: AF_INET, destinationLength: 32, flags: UInt32(reach_rtm_f_cloned), [
            .gateway("192.168.1.1"), .oif(2),
        ]),
        expected: ExpectedRoute(family: AF_INET, destinationLength: 32, nextHops: [Hop(2, "192.168.1.1")], isClone: true)),
    // ECMP: one next hop per RTA_MULTIPATH entry.
    RouteMessageCase(
        label: "IPv4 multipath, a hop without a gateway",
        message: routeMessage(family: AF_INET, [
            .priority(50), .multipath([RawNextHop(2, "10.0.0.1"), RawNextHop(3, "10.1.0.1"), RawNextHop(4)]),
        ]),
        expected: ExpectedRoute(family: AF_INET, metric: 50, nextHops: [Hop(2, "10.0.0.1"), Hop(3, "10.1.0.1"), Hop(4)])),
    RouteMessageCase(
        label: "IPv6 multipath",
        message: routeMessage(family: AF_INET6, [.multipath([RawNextHop(3, "fe80::1"), RawNextHop(4, "fe80::2")])]),
        expected: ExpectedRoute(family: AF_INET6, nextHops: [Hop(3, "fe80::1"), Hop(4, "fe80::2")])),
    RouteMessageCase(
        label: "RTA_MULTIPATH beats RTA_OIF and RTA_GATEWAY",
        message: routeMessage(family: AF_INET, [.oif(9), .gateway("10.9.9.9"), .multipath([RawNextHop(2, "10.0.0.1")])]),
        expected: ExpectedRoute(family: AF_INET, nextHops: [Hop(2, "10.0.0.1")])),
    // Attributes that do not hold what their type needs are ignored, one by one.
    RouteMessageCase(
        label: "no RTA_OIF: no next hop, even with a gateway",
        message: routeMessage(family: AF_INET, [.gateway("192.168.1.1"), .priority(7)]),
        expected: ExpectedRoute(family: AF_INET, metric: 7)),
    RouteMessageCase(
        label: "OIF, PRIORITY and TABLE shorter than 4 bytes are ignored",
        message: routeMessage(family: AF_INET, table: 100, [
            RawAttribute(reach_rta_oif, [2, 0]), RawAttribute(reach_rta_priority, [7, 0]), RawAttribute(reach_rta_table, [9]),
        ]),
        expected: ExpectedRoute(family: AF_INET, table: 100)),
    RouteMessageCase(
        label: "a gateway of the other family's length is dropped (IPv4 route)",
        message: routeMessage(family: AF_INET, [.gateway("fe80::1"), .preferredSource("2001:db8::5"), .oif(2)]),
        expected: ExpectedRoute(family: AF_INET, nextHops: [Hop(2)])),
    RouteMessageCase(
        label: "a gateway of the other family's length is dropped (IPv6 route)",
        message: routeMessage(family: AF_INET6, [.gateway("192.168.1.1"), .oif(3)]),
        expected: ExpectedRoute(family: AF_INET6, nextHops: [Hop(3)])),
    RouteMessageCase(
        label: "unknown and unused attributes are skipped",
        message: routeMessage(family: AF_INET, [
            RawAttribute(12, [UInt8](repeating: 0xAB, count: 32)),  // RTA_CACHEINFO
            RawAttribute(999, [1, 2, 3]), .oif(2), RawAttribute(reach_rta_mark, rawBytes(of: UInt32(0xCA6C))),
        ]),
        expected: ExpectedRoute(family: AF_INET, nextHops: [Hop(2)])),
    // Malformed attribute lists: the walk stops at the first attribute that does not fit.
    RouteMessageCase(
        label: "an attribute whose length runs past the message ends the walk",
        message: routeMessage(family: AF_INET, [
            .oif(2), RawAttribute(reach_rta_gateway, addressBytes("10.0.0.1"), declaredLength: 200), .priority(5),
        ]),
        expected: ExpectedRoute(family: AF_INET, nextHops: [Hop(2)])),
    RouteMessageCase(
        label: "an attribute shorter than its own header ends the walk",
        message: routeMessage(family: AF_INET, [.oif(2), RawAttribute(reach_rta_priority, [5, 0, 0, 0], declaredLength: 2), .table(7)]),
        expected: ExpectedRoute(family: AF_INET, nextHops: [Hop(2)])),
    RouteMessageCase(
        label: "RTA_MULTIPATH too short for one hop gives no hops (RTA_OIF is the fallback)",
        message: routeMessage(family: AF_INET, [RawAttribute(reach_rta_multipath, [8, 0, 0, 0]), .oif(6)]),
        expected: ExpectedRoute(family: AF_INET, nextHops: [Hop(6)])),
    RouteMessageCase(
        label: "a later hop that runs past RTA_MULTIPATH is dropped, earlier ones kept",
        message: routeMessage(family: AF_INET, [
            .multipath([RawNextHop(2, "10.0.0.1"), RawNextHop(3, "10.1.0.1", declaredLength: 200)]),
        ]),
        expected: ExpectedRoute(family: AF_INET, nextHops: [Hop(2, "10.0.0.1")])),
    // Found by FuzzRouteMessage: the first hop's length was not checked, so its attribute walk
    // ran on past RTA_MULTIPATH (past the message, for AddressSanitizer) and here took the
    // route's own RTA_GATEWAY for the hop's.
    RouteMessageCase(
        label: "a first hop that runs past RTA_MULTIPATH is dropped",
        message: routeMessage(family: AF_INET, [
            .multipath([RawNextHop(5, declaredLength: 16)]), .gateway("10.9.9.9"), .oif(7),
        ]),
        expected: ExpectedRoute(family: AF_INET, nextHops: [Hop(7, "10.9.9.9")])),
    RouteMessageCase(
        label: "a first hop shorter than its own header is dropped",
        message: routeMessage(family: AF_INET, [.multipath([RawNextHop(5, "10.0.0.1", declaredLength: 4)])]),
        expected: ExpectedRoute(family: AF_INET)),
    RouteMessageCase(
        label: "attributes past nlmsg_len are not read",
        message: declaring(
            routeMessage(family: AF_INET, table: 100, [.table(1000), .oif(2)]),
            length: MemoryLayout<nlmsghdr>.size + MemoryLayout<rtmsg>.size),
        expected: ExpectedRoute(family: AF_INET, table: 100)),
    // Not a route at all.
    RouteMessageCase(
        label: "RTM_NEWLINK is not a route", message: routeMessage(type: 16, family: AF_INET, [.oif(2)]), expected: nil),
    RouteMessageCase(
        label: "RTM_GETROUTE is not a route", message: routeMessage(type: reach_rtm_getroute, family: AF_INET, [.oif(2)]),
        expected: nil),
    RouteMessageCase(
        label: "RTM_NEWRULE is not a route", message: ruleMessage(family: AF_INET, [.fwmark(1)]), expected: nil),
    RouteMessageCase(
        label: "too short for rtmsg",
        message: truncated(routeMessage(family: AF_INET, [.oif(2)]), to: MemoryLayout<nlmsghdr>.size + 8), expected: nil),
]

/// One canned message and the `(priority, mark)` that `ruleMark` finds in it.
struct RuleMarkCase: Sendable, CustomTestStringConvertible {
    var label: String
    var message: [UInt8]
    var expected: (priority: UInt32, mark: UInt32)?
    var testDescription: String { label }
}

private let ruleMarkCases: [RuleMarkCase] = [
    RuleMarkCase(
        label: "fwmark rule", message: ruleMessage(family: AF_INET, [.table(100), .rulePriority(32000), .fwmark(0xCA6C)]),
        expected: (32000, 0xCA6C)),
    RuleMarkCase(
        label: "IPv6 fwmark rule, mark before priority",
        message: ruleMessage(family: AF_INET6, [.fwmark(1), .rulePriority(100)]), expected: (100, 1)),
    RuleMarkCase(label: "no FRA_PRIORITY: priority 0", message: ruleMessage(family: AF_INET, [.fwmark(5)]), expected: (0, 5)),
    RuleMarkCase(
        label: "a rule without a mark", message: ruleMessage(family: AF_INET, [.table(254), .rulePriority(32766)]), expected: nil),
    RuleMarkCase(label: "mark 0 is no mark", message: ruleMessage(family: AF_INET, [.fwmark(0)]), expected: nil),
    RuleMarkCase(
        label: "a short FRA_FWMARK is ignored", message: ruleMessage(family: AF_INET, [RawAttribute(reach_fra_fwmark, [1, 0])]),
        expected: nil),
    RuleMarkCase(
        label: "a mark past a malformed attribute is not read",
        message: ruleMessage(family: AF_INET, [RawAttribute(reach_fra_priority, [1, 0, 0, 0], declaredLength: 1), .fwmark(3)]),
        expected: nil),
    RuleMarkCase(label: "a route is not a rule", message: routeMessage(family: AF_INET, [.oif(2)]), expected: nil),
    RuleMarkCase(
        label: "too short for fib_rule_hdr",
        message: truncated(ruleMessage(family: AF_INET, [.fwmark(1)]), to: MemoryLayout<nlmsghdr>.size + 4), expected: nil),
]

private func parseRoute(_ message: [UInt8]) -> RouteMessage? { withHeader(message) { RouteMessage($0) } }

private func parseRuleMark(_ message: [UInt8]) -> (UInt32, UInt32)? { withHeader(message) { RouteQueries.ruleMark($0) } }

@Suite("RouteMessage and ruleMark on canned netlink messages")
struct RouteMessageTests {
    @Test("route messages", arguments: routeCases)
    func route(_ row: RouteMessageCase) throws {
        let parsed = parseRoute(row.message)
        guard let expected = row.expected else {
            #expect(parsed == nil)
            return
        }
        let route = try #require(parsed)
        #expect(ExpectedRoute(route) == expected)
    }

    @Test("rule marks", arguments: ruleMarkCases)
    func ruleMark(_ row: RuleMarkCase) {
        let parsed = parseRuleMark(row.message)
        #expect(parsed?.0 == row.expected?.priority)
        #expect(parsed?.1 == row.expected?.mark)
    }

    @Test("every prefix of a well-formed message parses, as a route only once rtmsg is whole")
    func prefixes() {
        let fixedPart = MemoryLayout<nlmsghdr>.size + MemoryLayout<rtmsg>.size
        for row in routeCases where row.expected != nil {
            for length in MemoryLayout<nlmsghdr>.size...row.message.count {
                let route = parseRoute(truncated(row.message, to: length))
                #expect((route != nil) == (length >= fixedPart), "\(row.label): length \(length)")
                _ = parseRuleMark(truncated(row.message, to: length))
            }
        }
    }

    @Test("random attributes after a valid header never trap", arguments: [1, 7, 42, 1234] as [UInt64])
    func garbage(_ seed: UInt64) {
        var state = seed
        func next() -> UInt8 {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return UInt8(truncatingIfNeeded: state >> 33)
        }
        for round in 0..<300 {
            let tail = (0..<(round % 120)).map { _ in next() }
            for family in [AF_INET, AF_INET6] {
                let route = routeMessage(family: family, [RawAttribute(Int32(next() % 20), tail)])
                let garbage = routeMessage(family: family, []) + tail
                for message in [route, garbage, declaring(garbage, length: garbage.count)] {
                    if let parsed = parseRoute(message) { #expect(parsed.family == family) }
                }
                _ = parseRuleMark(ruleMessage(family: family, []) + tail)
            }
        }
    }
}
