import Foundation
import ReachabilityCore
import ReachabilityLinux
import ReachabilityTestKit
import Testing

/// A client namespace and a server namespace joined by a veth (`c0` 10.53.0.2 / fd53::2 to
/// `s0` 10.53.0.1 / fd53::1), plus a second link in the client (`d0`, 10.54.0.2, whose peer
/// stays in the client) that leads nowhere near the server.
private struct DNSNamespaces {
    let client: TestNamespace
    let server: TestNamespace

    init() async throws {
        client = try TestNamespace()
        server = try TestNamespace()
        try client.ip("link", "add", "c0", "type", "veth", "peer", "name", "s0")
        try client.moveLink("s0", to: server)
        try client.ipBatch([
            "link set c0 up", "addr add 10.53.0.2/24 dev c0", "addr add fd53::2/64 dev c0 nodad",
            "link add d0 type veth peer name d0-peer", "link set d0 up", "link set d0-peer up", "addr add 10.54.0.2/24 dev d0",
        ])
        try server.ipBatch(["link set s0 up", "addr add 10.53.0.1/24 dev s0", "addr add fd53::1/64 dev s0 nodad"])
        for _ in 0..<300 where !(try client.ip("link", "show", "c0").contains("LOWER_UP")) { try await Task.sleep(for: .milliseconds(10)) }
    }
}

/// `probe.test` has both families; `alias.test` is a CNAME to it; any other `.test` name does
/// not exist (`--local`: answered from local data only, NXDOMAIN otherwise).
private let probeAnswers = ["--local=/test/", "--host-record=probe.test,10.53.0.1,fd53::1", "--cname=alias.test,probe.test"]

/// The blocking overload: from an async context, a plain call picks the `async` one.
private func resolveBlocking(_ resolver: LinkResolver, _ host: String, ipv4: Bool = true, ipv6: Bool = false, timeout: Duration) -> LinkResolution {
    resolver.resolve(host, ipv4: ipv4, ipv6: ipv6, timeout: timeout)
}

private func elapsed(_ body: () async -> LinkResolution) async -> (LinkResolution, Duration) {
    let start = ContinuousClock.now
    let result = await body()
    return (result, ContinuousClock.now - start)
}

@Suite(
    "Per-interface DNS resolution against dnsmasq", .enabled(if: TestNamespace.isSupported && Dnsmasq.isAvailable, "needs root and dnsmasq"),
    .serialized)
struct LinkResolverTests {
    @Test func answersAnARecordThroughTheInterface() async throws {
        let net = try await DNSNamespaces()
        let dnsmasq = try await Dnsmasq(in: net.server, options: probeAnswers)
        defer { dnsmasq.stop() }
        let resolver = LinkResolver(interface: "c0", servers: ["10.53.0.1"], namespace: net.client.namespace)
        let resolution = await resolver.resolve("probe.test", ipv4: true, ipv6: false, timeout: .seconds(3))
        #expect(resolution == LinkResolution(addresses: ["10.53.0.1"], server: "10.53.0.1"))
        // The blocking variant gives the same, and so does a CNAME to the name.
        #expect(resolveBlocking(resolver, "probe.test", timeout: .seconds(3)).addresses == ["10.53.0.1"])
        #expect(await resolver.resolve("alias.test", ipv4: true, ipv6: false, timeout: .seconds(3)).addresses == ["10.53.0.1"])
    }

    @Test func asksBothFamiliesOverIPv6() async throws {
        let net = try await DNSNamespaces()
        let dnsmasq = try await Dnsmasq(in: net.server, listen: ["fd53::1"], options: probeAnswers)
        defer { dnsmasq.stop() }
        let resolver = LinkResolver(interface: "c0", servers: ["fd53::1"], namespace: net.client.namespace)
        let resolution = await resolver.resolve("probe.test", ipv4: true, ipv6: true, timeout: .seconds(3))
        #expect(resolution == LinkResolution(addresses: ["10.53.0.1", "fd53::1"], server: "fd53::1"))
        #expect(await resolver.resolve("probe.test", ipv4: false, ipv6: true, timeout: .seconds(3)).addresses == ["fd53::1"])
    }

    @Test func reportsNXDOMAINAtOnce() async throws {
        let net = try await DNSNamespaces()
        let dnsmasq = try await Dnsmasq(in: net.server, options: probeAnswers)
        defer { dnsmasq.stop() }
        // A second server is not asked after a definite "no such name".
        let resolver = LinkResolver(interface: "c0", servers: ["10.53.0.1", "10.53.0.99"], namespace: net.client.namespace)
        let (resolution, took) = await elapsed { await resolver.resolve("other.test", ipv4: true, ipv6: true, timeout: .seconds(3)) }
        #expect(resolution == LinkResolution(server: "10.53.0.1", failure: "DNS via 10.53.0.1: name not found (NXDOMAIN)"))
        #expect(took < .seconds(1))
    }

    @Test func seesAHijackingResolver() async throws {
        let net = try await DNSNamespaces()
        let dnsmasq = try await Dnsmasq(in: net.server, options: ["--address=/#/10.53.0.9"])
        defer { dnsmasq.stop() }
        let resolver = LinkResolver(interface: "c0", servers: ["10.53.0.1"], namespace: net.client.namespace)
        for host in ["connectivity-check.example.org", "captive.apple.com", "probe.test"] {
            #expect(await resolver.resolve(host, ipv4: true, ipv6: false, timeout: .seconds(3)).addresses == ["10.53.0.9"], "\(host)")
        }
    }

    @Test func reportsAPortWithNothingListening() async throws {
        let net = try await DNSNamespaces()
        let resolver = LinkResolver(interface: "c0", servers: ["10.53.0.1"], namespace: net.client.namespace)
        let (resolution, took) = await elapsed { await resolver.resolve("probe.test", ipv4: true, ipv6: false, timeout: .seconds(3)) }
        #expect(resolution.failure == "DNS via 10.53.0.1: nothing listening on port 53 (port unreachable)")
        #expect(resolution.addresses.isEmpty)
        #expect(took < .seconds(1))
    }

    @Test func honoursTheTimeoutWhenNoAnswerComes() async throws {
        let net = try await DNSNamespaces()
        // A neighbour that exists only in the client's table: queries leave and vanish.
        try net.client.ip("neigh", "add", "10.53.0.99", "lladdr", "02:00:00:00:00:99", "dev", "c0", "nud", "permanent")
        let resolver = LinkResolver(interface: "c0", servers: ["10.53.0.99", "10.53.0.98"], namespace: net.client.namespace)
        try net.client.ip("neigh", "add", "10.53.0.98", "lladdr", "02:00:00:00:00:98", "dev", "c0", "nud", "permanent")
        let (resolution, took) = await elapsed { await resolver.resolve("probe.test", ipv4: true, ipv6: true, timeout: .milliseconds(600)) }
        #expect(resolution == LinkResolution(server: "10.53.0.98", failure: "DNS via 10.53.0.99, 10.53.0.98: no answer in 0.6 s"))
        #expect(took >= .milliseconds(550) && took < .milliseconds(1100), "took \(took)")
        // The blocking variant honours it too.
        let start = ContinuousClock.now
        #expect(resolveBlocking(resolver, "probe.test", timeout: .milliseconds(300)).failure != nil)
        #expect(ContinuousClock.now - start < .milliseconds(800))
    }

    @Test func aSocketBoundToTheOtherInterfaceGetsNoAnswer() async throws {
        let net = try await DNSNamespaces()
        let dnsmasq = try await Dnsmasq(in: net.server, options: probeAnswers)
        defer { dnsmasq.stop() }
        // Without SO_BINDTODEVICE the query would follow the route through c0 and succeed.
        let wrong = LinkResolver(interface: "d0", servers: ["10.53.0.1"], namespace: net.client.namespace)
        let resolution = await wrong.resolve("probe.test", ipv4: true, ipv6: false, timeout: .milliseconds(500))
        #expect(resolution.addresses.isEmpty)
        #expect(resolution.failure?.hasPrefix("DNS via 10.53.0.1: ") == true, "\(resolution)")
        let right = LinkResolver(interface: "c0", servers: ["10.53.0.1"], namespace: net.client.namespace)
        #expect(await right.resolve("probe.test", ipv4: true, ipv6: false, timeout: .seconds(3)).addresses == ["10.53.0.1"])
        let missing = LinkResolver(interface: "nosuch0", servers: ["10.53.0.1"], namespace: net.client.namespace)
        #expect(await missing.resolve("probe.test", ipv4: true, ipv6: false, timeout: .seconds(1)).failure
            == "DNS via 10.53.0.1: cannot bind to nosuch0: No such device")
    }

    @Test func aLoopbackServerIsNotBoundToTheDevice() async throws {
        let net = try await DNSNamespaces()
        // A stub resolver on the client's own loopback, as systemd-resolved's 127.0.0.53.
        let stub = try await Dnsmasq(in: net.client, listen: ["127.0.0.53"], options: probeAnswers)
        defer { stub.stop() }
        let resolver = LinkResolver(interface: "c0", servers: ["127.0.0.53"], namespace: net.client.namespace)
        #expect(await resolver.resolve("probe.test", ipv4: true, ipv6: false, timeout: .seconds(3)).addresses == ["10.53.0.1"])
    }

    @Test func readsResolvConfWhenGivenNoServers() async throws {
        let net = try await DNSNamespaces()
        let dnsmasq = try await Dnsmasq(in: net.server, options: probeAnswers)
        defer { dnsmasq.stop() }
        let files = try TemporaryDirectory()
        defer { files.remove() }
        try files.write("with", "# generated\nsearch lan\nnameserver 10.53.0.1\noptions edns0\n")
        try files.write("without", "search lan\n# nameserver 10.53.0.1\n")
        let configured = LinkResolver(interface: "c0", servers: [], namespace: net.client.namespace, resolvConfPath: files.path + "/with")
        #expect(await configured.resolve("probe.test", ipv4: true, ipv6: false, timeout: .seconds(3))
            == LinkResolution(addresses: ["10.53.0.1"], server: "10.53.0.1"))
        for path in [files.path + "/without", files.path + "/missing"] {
            let none = LinkResolver(interface: "c0", servers: [], namespace: net.client.namespace, resolvConfPath: path)
            #expect(await none.resolve("probe.test", ipv4: true, ipv6: false, timeout: .seconds(1)) == LinkResolution(failure: "no DNS server for c0"))
        }
    }
}

@Suite("Per-interface DNS resolution without a network")
struct LinkResolverOfflineTests {
    @Test("an address literal is its own answer, without a query", arguments: ["10.1.2.3", "2001:db8::1", "[2001:db8::1]", "::ffff:10.0.0.1"])
    func literal(_ host: String) async {
        // A server that does not exist: any query would fail or time out.
        let resolver = LinkResolver(interface: "nosuch0", servers: ["192.0.2.1"], namespace: nil)
        let expected = LinkResolution(addresses: [host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host])
        let start = ContinuousClock.now
        #expect(resolveBlocking(resolver, host, timeout: .seconds(5)) == expected)
        #expect(await resolver.resolve(host, ipv4: false, ipv6: true, timeout: .seconds(5)) == expected)
        #expect(ContinuousClock.now - start < .milliseconds(200))
    }

    @Test("a name that cannot be encoded fails before any query")
    func badName() {
        let resolver = LinkResolver(interface: "nosuch0", servers: ["192.0.2.1"], namespace: nil)
        #expect(resolver.resolve("a..b", ipv4: true, ipv6: true, timeout: .seconds(5))
            == LinkResolution(failure: "cannot ask DNS for 'a..b': empty label"))
    }

    @Test("a server that is not an address")
    func badServer() {
        let resolver = LinkResolver(interface: "nosuch0", servers: ["dns.example"], namespace: nil)
        #expect(resolver.resolve("probe.test", ipv4: true, ipv6: true, timeout: .seconds(1))
            == LinkResolution(server: "dns.example", failure: "DNS via dns.example: not an IP address"))
    }

    @Test("resolv.conf nameserver lines")
    func resolvConf() {
        let text = """
            # nameserver 10.0.0.1
            ; nameserver 10.0.0.2
            search example.org
            nameserver\t192.168.1.1
              nameserver 192.168.1.1
            nameserver fe80::1%wlan0
            nameserver not-an-address
            nameserver
            nameserver 2001:db8::53 trailing
            nameserver 10.9.9.9

            """
        #expect(ResolvConf.nameservers(in: text) == ["192.168.1.1", "fe80::1%wlan0", "2001:db8::53"])
        #expect(ResolvConf.nameservers(in: "") == [])
    }
}
