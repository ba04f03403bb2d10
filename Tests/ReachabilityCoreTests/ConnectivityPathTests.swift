import ReachabilityCore
import Testing

/// Which interfaces are uplinks, how results land in a path, and what the policy makes of them.
@Suite("Connectivity in paths and policy")
struct ConnectivityPathTests {
    static let lease = DHCPHints(androidMetered: false, leaseFile: "/l", dnsServers: ["192.0.2.53"], captivePortalURL: "https://p.test/api")

    static func snapshot(wifiFlags: LinkFlags = Link.running, routes: [DefaultRoute] = [route4(2), route6(3, metric: 50)]) -> NetworkSnapshot {
        var wifi = Link.wifi("wlan0", 2, flags: wifiFlags)
        wifi.dhcpHints = lease
        return NetworkSnapshot(
            interfaces: [Link.loopback, wifi, Link.cellular("wwan0", 3), Link.wired("eth0", 4)],
            addresses: [v4(2), v6(3, "2001:db8:3::2"), v4(4, "198.51.100.4"), v6(2, "fe80::2", scope: .link)],
            defaultRoutes: routes)
    }

    @Test func uplinksAreRunningInterfacesWithADefaultRouteAndAGlobalAddressOfItsFamily() {
        let targets = ProbeUplinks.targets(in: Self.snapshot(), namespacePath: "/run/netns/x")
        let byName = Dictionary(uniqueKeysWithValues: targets.values.map { ($0.interface, $0) })
        #expect(Set(byName.keys) == ["wlan0", "wwan0"])  // eth0 has no default route
        #expect(byName["wlan0"]?.ipv4 == true && byName["wlan0"]?.ipv6 == false)
        #expect(byName["wwan0"]?.ipv6 == true && byName["wwan0"]?.ipv4 == false)
        #expect(byName["wlan0"]?.dnsServers == ["192.0.2.53"])
        #expect(byName["wlan0"]?.captivePortalAPI == "https://p.test/api")
        #expect(byName["wlan0"]?.namespacePath == "/run/netns/x")
        // A link that is down is no uplink; a v6 route without a global v6 address is none either.
        #expect(ProbeUplinks.targets(in: Self.snapshot(wifiFlags: [.up])).values.map(\.interface) == ["wwan0"])
        #expect(ProbeUplinks.targets(in: Self.snapshot(routes: [route6(2)])).isEmpty)
    }

    @Test func aNewAddressOrGatewayIsANewNetwork() {
        let before = Set(ProbeUplinks.targets(in: Self.snapshot()).keys)
        var moved = Self.snapshot()
        moved.addresses[0] = v4(2, "192.0.2.99")
        let after = Set(ProbeUplinks.targets(in: moved).keys)
        #expect(before.first { $0.index == 2 } != after.first { $0.index == 2 })
        #expect(before.first { $0.index == 3 } == after.first { $0.index == 3 })
    }

    static let wifiPath = NetworkPath(
        status: .wifi, ipv4: true, primary: InterfaceReference(name: "wlan0", type: .wifi),
        interfaces: [
            Interface(name: "wlan0", index: 2, type: .wifi, isExpensive: false, isUp: true, isRunning: true),
            Interface(name: "wwan0", index: 3, type: .cellular, isExpensive: true, isUp: true, isRunning: true),
        ])

    @Test(arguments: [
        (Connectivity.full, nil as String?, TransferDecision.allow),
        (.portal, "http://p.test/login", .wait(.captivePortal(url: "http://p.test/login"))),
        (.limited, nil, .wait(.noInternet)),
        (.partial, nil, .wait(.noInternet)),
    ])
    func thePrimarysAnswerIsThePathsAndDecidesThePolicy(connectivity: Connectivity, portal: String?, decision: TransferDecision) {
        let results: [Int32: InterfaceValidation] = [2: InterfaceValidation(connectivity: connectivity, portalURL: portal), 3: InterfaceValidation(connectivity: .full)]
        let path = ConnectivityAnnotation.apply(results, to: Self.wifiPath)
        #expect(path.connectivity == connectivity)
        #expect(path.portalURL == (connectivity == .portal ? portal : nil))
        #expect(TransferPolicy.any.decide(path) == decision)
        var lenient = TransferPolicy.any
        lenient.requiresInternet = false
        #expect(lenient.decide(path) == .allow)
    }

    @Test func pendingUplinksAreUnknownAndHoldTransfersUntilChecked() {
        let path = ConnectivityAnnotation.apply([:], pending: [2], to: Self.wifiPath)
        #expect(path.connectivity == .unknown)
        #expect(path.interface(named: "wlan0")?.validation == InterfaceValidation(connectivity: .unknown))
        #expect(path.interface(named: "wwan0")?.validation == nil)
        #expect(TransferPolicy.any.decide(path) == .wait(.checkingInternet))
        // Not probing: no validation anywhere, nothing waits.
        #expect(Self.wifiPath.connectivity == .unknown)
        #expect(TransferPolicy.any.decide(Self.wifiPath) == .allow)
    }

    @Test func withoutADefaultRouteConnectivityIsKnownWithoutAProbe() {
        let evaluator = PathEvaluator()
        let lan = NetworkSnapshot(interfaces: [Link.loopback, Link.wired("eth0", 4)], addresses: [v4(4)], defaultRoutes: [])
        #expect(evaluator.evaluate(lan).connectivity == .local)
        let dark = NetworkSnapshot(interfaces: [Link.loopback, Link.wired("eth0", 4, flags: [.up])], addresses: [v4(4)], defaultRoutes: [])
        #expect(evaluator.evaluate(dark).connectivity == .none)
        // A LAN destination (no gateway) needs no Internet, so a portal does not hold it.
        let network = TransferNetwork(status: .wired, connectivity: nil)
        #expect(TransferPolicy.any.decide(network) == .allow)
    }

    @Test func configurationLinesSetProbesAndBadOnesSayWhy() throws {
        let file = try ConfigurationFile(
            parsing: "wlan* = wifi\nprobe = http://probe.test/generate_204\nprobe = https://probe.test/generate_204\nprobe-timeout = 2.5\n",
            name: "reach.conf")
        #expect(file.rules.count == 1)
        let validation = try #require(file.probeSettings.validation)
        #expect(validation.endpoints.map(\.url) == ["http://probe.test/generate_204", "https://probe.test/generate_204"])
        #expect(validation.timeout == .milliseconds(2500))
        #expect(ConfigurationFile.problems(in: "probe = ftp://x\n", name: "c").first?.description == "c:1: invalid setting 'probe = ftp://x': not an http:// or https:// URL")
        #expect(ConfigurationFile.problems(in: "probe-timeout = inf\n", name: "c").count == 1)
        #expect(ConfigurationFile.problems(in: "probe-recheck = 5\n", name: "c").count == 1)
        #expect(try ConfigurationFile(parsing: "wlan0 = wifi\n", name: "c").probeSettings.validation == nil)
        // The command line's probes come first; its timeout wins.
        var command = ProbeSettings()
        #expect(command.apply(key: "probe", value: "http://10.0.0.1/") == nil)
        #expect(command.apply(key: "probe-timeout", value: "1") == nil)
        let merged = file.probeSettings.overridden(by: command)
        #expect(merged.endpoints.map(\.url).first == "http://10.0.0.1/")
        #expect(merged.validation?.timeout == .seconds(1))
    }
}
