import ReachabilityCore
import Testing

/// One row of the evaluator table: a snapshot and the path facts it must produce.
struct EvaluatorCase: CustomTestStringConvertible, Sendable {
    var name: String
    var snapshot: NetworkSnapshot
    var overrides: [String] = []
    var status: NetworkPath.Status
    var primary: String?
    var underlay: String? = nil
    var ipv4: Bool
    var ipv6: Bool
    var expensive: Bool = false

    var testDescription: String { name }
}

let evaluatorCases: [EvaluatorCase] = [
    EvaluatorCase(
        name: "nothing but loopback is unreachable",
        snapshot: NetworkSnapshot(interfaces: [Link.loopback], addresses: [v4(1, "127.0.0.1")]),
        status: .unreachable, primary: nil, ipv4: false, ipv6: false),
    EvaluatorCase(
        name: "Wi-Fi with a default route",
        snapshot: NetworkSnapshot(interfaces: [Link.loopback, Link.wifi()], addresses: [v4(2)], defaultRoutes: [route4(2)]),
        status: .wifi, primary: "wlan0", ipv4: true, ipv6: false),
    EvaluatorCase(
        name: "a link without a default route does not make the host reachable",
        snapshot: NetworkSnapshot(interfaces: [Link.wifi()], addresses: [v4(2)]),
        status: .unreachable, primary: nil, ipv4: false, ipv6: false),
    EvaluatorCase(
        name: "default route through an interface without an address is not reachable",
        snapshot: NetworkSnapshot(interfaces: [Link.wifi()], defaultRoutes: [route4(2)]),
        status: .unreachable, primary: nil, ipv4: false, ipv6: false),
    EvaluatorCase(
        name: "lowest metric wins: wired 100 over Wi-Fi 600",
        snapshot: NetworkSnapshot(
            interfaces: [Link.wifi(), Link.wired()], addresses: [v4(2), v4(4, "198.51.100.2")],
            defaultRoutes: [route4(2, metric: 600), route4(4, metric: 100)]),
        status: .wired, primary: "eth0", ipv4: true, ipv6: false),
    EvaluatorCase(
        name: "cellular is expensive",
        snapshot: NetworkSnapshot(interfaces: [Link.cellular()], addresses: [v4(3)], defaultRoutes: [route4(3)]),
        status: .cellular, primary: "wwan0", ipv4: true, ipv6: false, expensive: true),
    EvaluatorCase(
        name: "the kernel lookup beats the dump's metrics (policy routing)",
        snapshot: NetworkSnapshot(
            interfaces: [Link.wifi(), Link.cellular()], addresses: [v4(2), v4(3, "203.0.113.5")],
            defaultRoutes: [route4(2, metric: 100), route4(3, metric: 50, table: 100)],
            lookups: [RouteLookup(family: .ipv4, interfaceIndex: 2)]),
        status: .wifi, primary: "wlan0", ipv4: true, ipv6: false),
    EvaluatorCase(
        name: "a lookup through an unusable link falls back to the best usable route",
        snapshot: NetworkSnapshot(
            interfaces: [Link.wifi(flags: [.up]), Link.cellular()], addresses: [v4(2), v4(3, "203.0.113.5")],
            defaultRoutes: [route4(2, metric: 10), route4(3, metric: 50)],
            lookups: [RouteLookup(family: .ipv4, interfaceIndex: 2)]),
        status: .cellular, primary: "wwan0", ipv4: true, ipv6: false, expensive: true),
    EvaluatorCase(
        name: "UP without LOWER_UP cannot carry traffic",
        snapshot: NetworkSnapshot(interfaces: [Link.wifi(flags: [.up, .running])], addresses: [v4(2)], defaultRoutes: [route4(2)]),
        status: .unreachable, primary: nil, ipv4: false, ipv6: false),
    EvaluatorCase(
        name: "a down link is never primary",
        snapshot: NetworkSnapshot(interfaces: [Link.wired(flags: [])], addresses: [v4(4)], defaultRoutes: [route4(4)]),
        status: .unreachable, primary: nil, ipv4: false, ipv6: false),
    EvaluatorCase(
        name: "an enslaved link is never primary; its bridge is, with the port's type",
        snapshot: NetworkSnapshot(
            interfaces: [Link.wired(master: 5), Link.make("br0", 5, kind: "bridge")], addresses: [v4(5)],
            defaultRoutes: [route4(4, metric: 10), route4(5, metric: 100)]),
        status: .wired, primary: "br0", ipv4: true, ipv6: false),
    EvaluatorCase(
        name: "IPv6-only counts as reachable",
        snapshot: NetworkSnapshot(interfaces: [Link.wifi()], addresses: [v6(2)], defaultRoutes: [route6(2)]),
        status: .wifi, primary: "wlan0", ipv4: false, ipv6: true),
    EvaluatorCase(
        name: "link-local IPv6 alone does not reach the Internet",
        snapshot: NetworkSnapshot(interfaces: [Link.wifi()], addresses: [v6(2, "fe80::2", scope: .link)], defaultRoutes: [route6(2)]),
        status: .unreachable, primary: nil, ipv4: false, ipv6: false),
    EvaluatorCase(
        name: "a unique local IPv6 address (fd00::/8) alone does not reach the Internet",
        snapshot: NetworkSnapshot(interfaces: [Link.wifi()], addresses: [v6(2, "fd12:3456:789a::2")], defaultRoutes: [route6(2)]),
        status: .unreachable, primary: nil, ipv4: false, ipv6: false),
    EvaluatorCase(
        name: "IPv4 with only a ULA for IPv6 reaches the Internet over IPv4 only",
        snapshot: NetworkSnapshot(
            interfaces: [Link.wifi()], addresses: [v4(2), v6(2, "fc00::2")], defaultRoutes: [route4(2), route6(2)]),
        status: .wifi, primary: "wlan0", ipv4: true, ipv6: false),
    EvaluatorCase(
        name: "a ULA beside a global IPv6 address leaves IPv6 reachable",
        snapshot: NetworkSnapshot(
            interfaces: [Link.wifi()], addresses: [v6(2, "fd00::2"), v6(2)], defaultRoutes: [route6(2)]),
        status: .wifi, primary: "wlan0", ipv4: false, ipv6: true),
    EvaluatorCase(
        name: "a tentative IPv6 address is not usable yet",
        snapshot: NetworkSnapshot(interfaces: [Link.wifi()], addresses: [v6(2, tentative: true)], defaultRoutes: [route6(2)]),
        status: .unreachable, primary: nil, ipv4: false, ipv6: false),
    EvaluatorCase(
        name: "families tracked separately: IPv4 on Wi-Fi, IPv6 on cellular makes the path expensive",
        snapshot: NetworkSnapshot(
            interfaces: [Link.wifi(), Link.cellular()], addresses: [v4(2), v6(3)],
            defaultRoutes: [route4(2), route6(3)]),
        status: .wifi, primary: "wlan0", ipv4: true, ipv6: true, expensive: true),
    EvaluatorCase(
        name: "WireGuard egress reports its Wi-Fi underlay",
        snapshot: NetworkSnapshot(
            interfaces: [Link.wifi(), Link.make("wg0", 7, kind: "wireguard")], addresses: [v4(2), v4(7, "10.8.0.2")],
            defaultRoutes: [route4(2, metric: 600), route4(7, metric: 0, table: 51820)],
            lookups: [RouteLookup(family: .ipv4, interfaceIndex: 7)]),
        status: .wifi, primary: "wg0", underlay: "wlan0", ipv4: true, ipv6: false),
    EvaluatorCase(
        name: "a tunnel over cellular inherits the cost",
        snapshot: NetworkSnapshot(
            interfaces: [Link.cellular(), Link.make("tun0", 8, kind: "tun")], addresses: [v4(3), v4(8, "10.9.0.2")],
            defaultRoutes: [route4(3, metric: 700), route4(8, metric: 50)]),
        status: .cellular, primary: "tun0", underlay: "wwan0", ipv4: true, ipv6: false, expensive: true),
    EvaluatorCase(
        name: "a tunnel whose cost a rule sets keeps it",
        snapshot: NetworkSnapshot(
            interfaces: [Link.cellular(), Link.make("tun0", 8, kind: "tun")], addresses: [v4(3), v4(8, "10.9.0.2")],
            defaultRoutes: [route4(3, metric: 700), route4(8, metric: 50)]),
        overrides: ["tun0=inexpensive"],
        status: .cellular, primary: "tun0", underlay: "wwan0", ipv4: true, ipv6: false, expensive: false),
    EvaluatorCase(
        name: "a tunnel with no usable underlay is other",
        snapshot: NetworkSnapshot(interfaces: [Link.make("tun0", 8, kind: "tun")], addresses: [v4(8, "10.9.0.2")], defaultRoutes: [route4(8)]),
        status: .other, primary: "tun0", ipv4: true, ipv6: false),
    EvaluatorCase(
        name: "a GRE tunnel's underlay is its lower device",
        snapshot: NetworkSnapshot(
            interfaces: [Link.wifi(), Link.wired(), Link.make("gre1", 9, kind: "gre", parent: 4)],
            addresses: [v4(2), v4(4, "198.51.100.2"), v4(9, "10.10.0.1")],
            defaultRoutes: [route4(2, metric: 10), route4(9, metric: 1)]),
        status: .wired, primary: "gre1", underlay: "eth0", ipv4: true, ipv6: false),
    EvaluatorCase(
        name: "a plain veth uplink (a container) is other",
        snapshot: NetworkSnapshot(interfaces: [Link.make("eth0", 2, kind: "veth")], addresses: [v4(2)], defaultRoutes: [route4(2)]),
        status: .other, primary: "eth0", ipv4: true, ipv6: false),
    EvaluatorCase(
        name: "overrides turn veths into Wi-Fi and cellular",
        snapshot: NetworkSnapshot(
            interfaces: [Link.make("va", 2, kind: "veth"), Link.make("wa", 3, kind: "veth")], addresses: [v4(2), v4(3, "198.51.100.3")],
            defaultRoutes: [route4(2, metric: 200), route4(3, metric: 100)]),
        overrides: ["va=wifi", "wa=cellular"],
        status: .cellular, primary: "wa", ipv4: true, ipv6: false, expensive: true),
    EvaluatorCase(
        name: "two same-metric defaults: the lower index wins the tie, both listed",
        snapshot: NetworkSnapshot(
            interfaces: [Link.wifi(), Link.wired()], addresses: [v4(2), v4(4, "198.51.100.2")],
            defaultRoutes: [route4(4, metric: 1024), route4(2, metric: 1024)]),
        status: .wifi, primary: "wlan0", ipv4: true, ipv6: false),
    EvaluatorCase(
        name: "routes in another table lose a metric tie to the main table",
        snapshot: NetworkSnapshot(
            interfaces: [Link.wifi(), Link.wired()], addresses: [v4(2), v4(4, "198.51.100.2")],
            defaultRoutes: [route4(2, metric: 100, table: 200), route4(4, metric: 100)]),
        status: .wired, primary: "eth0", ipv4: true, ipv6: false),
]

@Suite("Path evaluator")
struct PathEvaluatorTests {
    @Test(arguments: evaluatorCases)
    func evaluates(_ row: EvaluatorCase) throws {
        let rules = try row.overrides.map { try OverrideRule(parsing: $0) }
        let path = PathEvaluator(classifier: Classifier(overrides: rules)).evaluate(row.snapshot)
        #expect(path.status == row.status)
        #expect(path.primary?.name == row.primary)
        #expect(path.underlay?.name == row.underlay)
        #expect(path.ipv4 == row.ipv4)
        #expect(path.ipv6 == row.ipv6)
        #expect(path.isExpensive == row.expensive)
        #expect(path.interfaces.map(\.index) == row.snapshot.interfaces.map(\.index).sorted())
    }

    @Test(arguments: evaluatorCases)
    func aCachedEvaluationEqualsAFreshOne(_ row: EvaluatorCase) throws {
        let evaluator = PathEvaluator(classifier: Classifier(overrides: try row.overrides.map { try OverrideRule(parsing: $0) }))
        var cache = ClassificationCache()
        let first = evaluator.evaluate(row.snapshot, cache: &cache)
        let second = evaluator.evaluate(row.snapshot, cache: &cache)
        #expect(first == evaluator.evaluate(row.snapshot))
        #expect(second == first)
        #expect(cache.count == Set(row.snapshot.interfaces).count)
    }

    @Test func theCacheForgetsInterfacesWhoseFactsChanged() {
        let evaluator = PathEvaluator()
        var cache = ClassificationCache()
        var snapshot = NetworkSnapshot(interfaces: [Link.wifi(), Link.wired()], addresses: [v4(2)], defaultRoutes: [route4(2)])
        _ = evaluator.evaluate(snapshot, cache: &cache)
        // Same index and name, but sysfs now shows no device behind it: a stale cache entry
        // would keep saying Wi-Fi.
        snapshot.interfaces[0] = Link.make("wlan0", 2, kind: nil)
        let path = evaluator.evaluate(snapshot, cache: &cache)
        #expect(path.interface(named: "wlan0")?.type == .virtual)
        #expect(path.interface(named: "wlan0")?.evidence.first(where: \.isDecisive)?.description == "device=none -> virtual (software interface) [decided]")
        #expect(cache.count == 2)
    }

    @Test func publishedInterfacesCarryAddressesStateAndEvidence() throws {
        let snapshot = NetworkSnapshot(
            interfaces: [Link.wifi(), Link.wired(flags: [.up])], addresses: [v6(2), v4(2), v6(2, "fe80::1", scope: .link)],
            defaultRoutes: [route4(2)])
        let path = PathEvaluator().evaluate(snapshot)
        let wifi = try #require(path.interface(named: "wlan0"))
        #expect(wifi.addresses == ["192.0.2.10/24", "2001:db8::10/64", "fe80::1/64"])
        #expect(wifi.isUp && wifi.isRunning)
        #expect(wifi.evidence.map(\.description).contains("DEVTYPE=wlan -> wifi [decided]"))
        #expect(wifi.evidence.first(where: \.isDecisive) == Evidence(signal: "DEVTYPE", value: "wlan", suggests: .wifi, isDecisive: true))
        let wired = try #require(path.interface(named: "eth0"))
        #expect(wired.isUp && !wired.isRunning)
    }

    @Test func aSecondAddressInTheSamePrefixKeepsTheIdentity() {
        let routes = [route4(2), route6(2)]
        let before = PathEvaluator().evaluate(
            NetworkSnapshot(interfaces: [Link.wifi()], addresses: [v4(2, "192.0.2.10"), v6(2, "2001:db8::10")], defaultRoutes: routes))
        // An IPv6 privacy address and a second IPv4 address, both in the prefixes already there.
        let after = PathEvaluator().evaluate(
            NetworkSnapshot(
                interfaces: [Link.wifi()],
                addresses: [v4(2, "192.0.2.10"), v4(2, "192.0.2.11"), v6(2, "2001:db8::10"), v6(2, "2001:db8::9c3e:51ff:fe00:1")],
                defaultRoutes: routes))
        #expect(before.identity.prefixes == ["192.0.2.0/24", "2001:db8::/64"])
        #expect(after.identity == before.identity)
        // A new prefix is a new network.
        let moved = PathEvaluator().evaluate(
            NetworkSnapshot(interfaces: [Link.wifi()], addresses: [v4(2, "192.0.2.10"), v6(2, "2001:db8:1::10")], defaultRoutes: routes))
        #expect(moved.identity != before.identity)
    }

    @Test func uniqueLocalAddressesAreTold() {
        #expect(InterfaceAddress(interfaceIndex: 1, family: .ipv6, address: "fd00::1", prefixLength: 64).isUniqueLocal)
        #expect(InterfaceAddress(interfaceIndex: 1, family: .ipv6, address: "fc00::1", prefixLength: 64).isUniqueLocal)
        #expect(!InterfaceAddress(interfaceIndex: 1, family: .ipv6, address: "fe80::1", prefixLength: 64).isUniqueLocal)
        #expect(!InterfaceAddress(interfaceIndex: 1, family: .ipv6, address: "2001:db8::1", prefixLength: 64).isUniqueLocal)
        #expect(!InterfaceAddress(interfaceIndex: 1, family: .ipv4, address: "10.0.0.1", prefixLength: 8).isUniqueLocal)
        let ula = InterfaceAddress(interfaceIndex: 1, family: .ipv6, address: "fd00::1", prefixLength: 64)
        #expect(ula.isUsableAsSource && !ula.isUsableForInternet)
    }

    @Test func evaluationIsDeterministicWhateverTheInputOrder() {
        let interfaces = [Link.wifi(), Link.wired(), Link.cellular()]
        let routes = [route4(2, metric: 5), route4(4, metric: 5), route4(3, metric: 5)]
        let addresses = [v4(2), v4(3, "203.0.113.5"), v4(4, "198.51.100.2")]
        let forward = PathEvaluator().evaluate(NetworkSnapshot(interfaces: interfaces, addresses: addresses, defaultRoutes: routes))
        let backward = PathEvaluator().evaluate(
            NetworkSnapshot(interfaces: interfaces.reversed(), addresses: addresses.reversed(), defaultRoutes: routes.reversed()))
        #expect(forward == backward)
        #expect(forward.primary?.name == "wlan0")
    }
}
