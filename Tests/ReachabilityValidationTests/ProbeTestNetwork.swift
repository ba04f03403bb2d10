import Foundation
import ReachabilityCore
import ReachabilityLinux
import ReachabilityTestKit

/// Two private namespaces joined by a veth: the client (10.77.0.2/24 and fd00:77::2/64 on `up0`,
/// default route via 10.77.0.1) where probes start, and the server (10.77.0.1/24 and
/// fd00:77::1/64 on `srv0`) where the test's servers listen. The client also has `side0` (10.88.0.2/24, one end of a veth whose other end
/// stays in the client: no route to the server), to show that a probe leaves through the
/// interface it names and no other.
final class ProbeTestNetwork {
    let client: TestNamespace
    let server: TestNamespace

    init() throws {
        client = try TestNamespace()
        server = try TestNamespace()
        try client.ipBatch(["link add up0 type veth peer name srv0", "link add side0 type veth peer name side1"])
        try client.moveLink("srv0", to: server)
        try client.ipBatch([
            "addr add 10.77.0.2/24 dev up0", "addr add fd00:77::2/64 dev up0 nodad", "link set up0 up", "addr add 10.88.0.2/24 dev side0", "link set side0 up", "link set side1 up",
            "route add default via 10.77.0.1 dev up0",
        ])
        try server.ipBatch(["addr add 10.77.0.1/24 dev srv0", "addr add fd00:77::1/64 dev srv0 nodad", "link set srv0 up"])
    }

    /// A target for `interface` in the client namespace.
    func target(
        _ interface: String = "up0", ipv6: Bool = false, dnsServers: [String] = [], captivePortalAPI: String? = nil
    ) throws -> ProbeTarget {
        ProbeTarget(
            interface: interface, index: try index(of: interface), ipv4: true, ipv6: ipv6, dnsServers: dnsServers,
            captivePortalAPI: captivePortalAPI, namespacePath: client.namespace.path)
    }

    /// The index `ip -o link` prints first (`5: up0@if4: …`); 0 for an interface that does not exist.
    private func index(of interface: String) throws -> Int32 {
        guard let output = try? client.ip("-o", "link", "show", "dev", interface) else { return 0 }
        return Int32(output.prefix { $0 != ":" }) ?? 0
    }
}
