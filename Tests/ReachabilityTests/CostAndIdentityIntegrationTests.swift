import Foundation
import Reachability
import ReachabilityCore
import ReachabilityLinux
import ReachabilityTestKit
import Testing

private func kernelMonitor(_ namespace: TestNamespace, overrides: [String], leaseRoot: String? = nil) throws -> NetworkMonitor {
    NetworkMonitor(configuration: MonitorConfiguration(
        overrides: try overrides.map { try OverrideRule(parsing: $0) }, sysfsRoot: "/nonexistent/reach-test-sysfs",
        leaseRoot: leaseRoot ?? "/nonexistent/reach-test-root", namespacePath: namespace.namespace.path))
}

@Suite("Tunnel underlay and path identity against the kernel", .enabled(if: TestNamespace.isSupported), .serialized)
struct CostAndIdentityIntegrationTests {
    /// `va` (cellular) and `wa` (Wi-Fi) uplinks, and `vpn0`, a veth standing in for a VPN
    /// tunnel, set up the way wg-quick does: the default route in table 51820, taken by every
    /// packet that does not carry the tunnel's own mark 0x51820.
    private func vpnOverTwoUplinks(_ ns: TestNamespace) throws {
        try ns.ipBatch([
            "link add va type veth peer name va-peer", "link add wa type veth peer name wa-peer",
            "link add vpn0 type veth peer name vpn0-peer",
            "link set va-peer up", "link set wa-peer up", "link set vpn0-peer up",
            "link set va up", "link set wa up", "link set vpn0 up",
            "addr add 10.1.0.2/24 dev va", "addr add 10.2.0.2/24 dev wa", "addr add 10.99.0.2/24 dev vpn0",
        ])
    }

    @Test func theTunnelReportsItsUnderlayAndFollowsItWhenItChanges() async throws {
        let ns = try TestNamespace()
        try vpnOverTwoUplinks(ns)
        let monitor = try kernelMonitor(ns, overrides: ["va=cellular", "wa=wifi", "vpn0=tunnel"])
        let recorder = PathRecorder(monitor.paths)
        _ = try await recorder.wait { path in ["va", "wa", "vpn0"].allSatisfy { path.interface(named: $0)?.isRunning == true } }

        try ns.ip("route", "add", "default", "via", "10.1.0.1", "dev", "va", "metric", "100")
        try ns.ip("route", "add", "default", "dev", "vpn0", "table", "51820")
        try ns.ip("rule", "add", "not", "fwmark", "0x51820", "table", "51820")
        let overCellular = try await recorder.wait { $0.underlay?.name == "va" }
        #expect(overCellular.primary == InterfaceReference(name: "vpn0", type: .tunnel))
        #expect(overCellular.status == .cellular)
        #expect(overCellular.isExpensive)
        #expect(overCellular.identity.underlay == "va")

        // The VPN stays up; only the route its own packets take moves to Wi-Fi.
        try ns.ip("route", "add", "default", "via", "10.2.0.1", "dev", "wa", "metric", "50")
        let overWiFi = try await recorder.wait { $0.underlay?.name == "wa" }
        #expect(overWiFi.primary?.name == "vpn0")
        #expect(overWiFi.status == .wifi)
        #expect(!overWiFi.isExpensive)

        // Traffic to one destination: the kernel's answer, tunnel and underlay included.
        let routes = try await monitor.routes(to: "192.0.2.80")
        #expect(routes.map(\.interface.name) == ["vpn0"])
        #expect(routes.first?.underlay?.name == "wa")
        #expect(routes.first?.status == .wifi)
        await recorder.cancel()
    }

    @Test func aConfiguredTunnelCostBeatsTheUnderlays() async throws {
        let ns = try TestNamespace()
        try vpnOverTwoUplinks(ns)
        try ns.ip("route", "add", "default", "via", "10.1.0.1", "dev", "va")
        try ns.ip("route", "add", "default", "dev", "vpn0", "table", "51820")
        try ns.ip("rule", "add", "not", "fwmark", "0x51820", "table", "51820")
        let recorder = PathRecorder(try kernelMonitor(ns, overrides: ["va=cellular", "vpn0=tunnel,inexpensive"]).paths)
        let path = try await recorder.wait { $0.underlay?.name == "va" }
        #expect(path.status == .cellular)
        #expect(!path.isExpensive)
        await recorder.cancel()
    }

    @Test func anAndroidHotspotLeaseMakesTheWiFiExpensive() async throws {
        let ns = try TestNamespace()
        try ns.ipBatch(["link add wa type veth peer name wa-peer", "link set wa-peer up", "link set wa up"])
        // From netlink: /sys shows the host's interfaces, not the namespace's.
        let index = try #require(Int(try ns.ip("-o", "link", "show", "wa").split(separator: ":").first ?? ""))
        // systemd-networkd's lease, as an Android hotspot's DHCP server fills option 43.
        let root = try TemporaryDirectory()
        defer { root.remove() }
        let marker = Array("ANDROID_METERED".utf8).map { String(format: "%02x", $0) }.joined()
        try root.write("run/systemd/netif/leases/\(index)", "# This is private data. Do not parse.\nADDRESS=192.168.43.17\nNETMASK=255.255.255.0\nROUTER=192.168.43.1\nVENDOR_SPECIFIC=\(marker)\n")

        let recorder = PathRecorder(try kernelMonitor(ns, overrides: ["wa=wifi"], leaseRoot: root.path).paths)
        _ = try await recorder.wait { $0.interface(named: "wa")?.isRunning == true }
        try ns.ip("addr", "add", "192.168.43.17/24", "dev", "wa")
        try ns.ip("route", "add", "default", "via", "192.168.43.1", "dev", "wa")
        let path = try await recorder.wait { $0.status == .wifi }
        #expect(path.isExpensive)
        let wa = try #require(path.interface(named: "wa"))
        #expect(wa.evidence.contains { $0.signal == "dhcp" && $0.value == "ANDROID_METERED" && $0.description.contains("run/systemd/netif/leases/\(index)") })
        await recorder.cancel()

        // The user can say the hint is wrong.
        let trusting = PathRecorder(try kernelMonitor(ns, overrides: ["wa=wifi", "dhcp:android-metered=inexpensive"], leaseRoot: root.path).paths)
        let overridden = try await trusting.wait { $0.status == .wifi }
        #expect(!overridden.isExpensive)
        await trusting.cancel()
    }

    @Test func aLeaseForAnotherAddressIsIgnored() async throws {
        let ns = try TestNamespace()
        try ns.ipBatch(["link add wa type veth peer name wa-peer", "link set wa-peer up", "link set wa up", "addr add 10.2.0.2/24 dev wa"])
        try ns.ip("route", "add", "default", "via", "10.2.0.1", "dev", "wa")
        // From netlink: /sys shows the host's interfaces, not the namespace's.
        let index = try #require(Int(try ns.ip("-o", "link", "show", "wa").split(separator: ":").first ?? ""))
        let root = try TemporaryDirectory()
        defer { root.remove() }
        let marker = Array("ANDROID_METERED".utf8).map { String(format: "%02x", $0) }.joined()
        try root.write("run/systemd/netif/leases/\(index)", "ADDRESS=192.168.43.17\nVENDOR_SPECIFIC=\(marker)\n")
        let recorder = PathRecorder(try kernelMonitor(ns, overrides: ["wa=wifi"], leaseRoot: root.path).paths)
        let path = try await recorder.wait { $0.status == .wifi }
        #expect(!path.isExpensive)
        await recorder.cancel()
    }

    @Test func aGatewayChangeOnTheSameInterfaceIsExactlyOneNewPath() async throws {
        let ns = try TestNamespace()
        try ns.ipBatch(["link add wa type veth peer name wa-peer", "link set wa-peer up", "link set wa up", "addr add 10.2.0.2/24 dev wa"])
        try ns.ip("route", "add", "default", "via", "10.2.0.1", "dev", "wa")
        let recorder = PathRecorder(try kernelMonitor(ns, overrides: ["wa=wifi"]).paths)
        let before = try await recorder.wait { $0.status == .wifi }
        #expect(before.identity.gateways == ["10.2.0.1"])
        #expect(before.identity.prefixes == ["10.2.0.0/24"])
        // Wait for the link to settle (its IPv6 link-local address arrives on its own).
        _ = try await recorder.wait { $0.interface(named: "wa")?.addresses.contains { $0.hasPrefix("fe80:") } == true }
        let settled = recorder.paths.count

        try ns.ip("route", "replace", "default", "via", "10.2.0.254", "dev", "wa")
        _ = try await recorder.wait(after: settled) { $0.identity.gateways == ["10.2.0.254"] }
        // A marker change after it: every path between the two belongs to the gateway change.
        try ns.ip("addr", "add", "10.77.0.1/32", "dev", "wa-peer")
        _ = try await recorder.wait(after: settled) { $0.interface(named: "wa-peer")?.addresses.contains("10.77.0.1/32") == true }
        let published = Array(recorder.paths.dropFirst(settled))
        #expect(published.count == 2)
        let change = try #require(published.first)
        #expect(change.identity.gateways == ["10.2.0.254"])
        #expect(change.identity != before.identity)
        #expect(change.status == .wifi && change.primary?.name == "wa")
        #expect(change.interface(named: "wa-peer")?.addresses.contains("10.77.0.1/32") == false)
        await recorder.cancel()
    }
}
