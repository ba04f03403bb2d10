import Foundation
import ReachabilityTestKit
import Testing

/// scripts/demo-network.sh builds the README's demo namespace: `reach` there prints what the
/// README shows, and the modem takes over when the Wi-Fi goes down.
@Suite(.enabled(if: TestNamespace.isSupported), .serialized)
struct DemoNetworkTests {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../scripts/demo-network.sh")
        .standardized.path

    @Test func theREADMEsDemoNetworkIsWhatTheREADMEShows() throws {
        let name = "reach-demo-\(getpid())"
        let up = try shell("\(Self.script) up --name \(name)")
        defer { _ = try? shell("\(Self.script) down --name \(name)") }
        #expect(up.status == 0, "\(up.stderr)")
        let reach = "ip netns exec \(name) \(reachBinary)"
        let overrides = "--override wlan0=wifi --override wwan0=cellular"
        #expect(try shell("\(reach) status \(overrides)").stdout == "wifi via wlan0 (IPv4 IPv6)\n")
        // wwan0's address is a host address of its /30, not the broadcast address.
        let addresses = try shell("ip -n \(name) -o -4 addr show dev wwan0").stdout
        #expect(addresses.contains("10.64.0.6/30 brd 10.64.0.7"), "\(addresses)")
        _ = try shell("ip -n \(name) link set wlan0 down")
        let cellular = try shell("\(reach) status \(overrides)")
        #expect(cellular.stdout == "cellular via wwan0 (IPv4) expensive\n")
        // A second `up` on the same name refuses rather than half-building over it.
        let again = try shell("\(Self.script) up --name \(name)")
        #expect(again.status == 1 && again.stderr.contains("exists"))
    }
}
