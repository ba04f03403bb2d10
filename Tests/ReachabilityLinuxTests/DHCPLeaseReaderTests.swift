import Foundation
import ReachabilityCore
import ReachabilityLinux
import ReachabilityTestKit
import Testing

/// A DHCPACK as dhcpcd stores it, with `options` after the magic cookie.
private func dhcpcdLease(yiaddr: [UInt8], options: [UInt8]) -> Data {
    var message = [UInt8](repeating: 0, count: 236)
    message[0] = 2
    message.replaceSubrange(16..<20, with: yiaddr)
    return Data(message + [99, 130, 83, 99] + options + [255])
}

private func option(_ code: UInt8, _ data: [UInt8]) -> [UInt8] { [code, UInt8(data.count)] + data }

@Suite("DHCP lease reader: DNS servers and captive-portal URL from a fixture tree")
struct DHCPLeaseReaderTests {
    @Test("networkd: DNS from the lease, the portal URL from the link state file")
    func networkd() throws {
        let root = try TemporaryDirectory()
        defer { root.remove() }
        try root.write("run/systemd/netif/leases/3", "# This is private data. Do not parse.\nADDRESS=10.20.0.7\nDNS=10.20.0.1 10.20.0.2\n")
        try root.write(
            "run/systemd/netif/links/3",
            "ADMIN_STATE=configured\nDNS=10.20.0.1 10.20.0.2 2001:db8::53\nCAPTIVE_PORTAL=https://portal.example/capport\n")
        let reader = DHCPLeaseReader(root: root.path)
        let hints = try #require(reader.hints(interface: "wlan0", index: 3, currentIPv4: ["10.20.0.7"]))
        #expect(hints.dnsServers == ["10.20.0.1", "10.20.0.2"])
        #expect(hints.captivePortalURL == "https://portal.example/capport")
        #expect(hints.leaseFile == root.path + "/run/systemd/netif/leases/3")
    }

    @Test("a lease without DNS servers takes the link state file's")
    func networkdFallback() throws {
        let root = try TemporaryDirectory()
        defer { root.remove() }
        try root.write("run/systemd/netif/leases/4", "ADDRESS=10.20.0.7\n")
        try root.write("run/systemd/netif/links/4", "DNS=10.20.0.53\n")
        let hints = try #require(DHCPLeaseReader(root: root.path).hints(interface: "eth0", index: 4, currentIPv4: []))
        #expect(hints.dnsServers == ["10.20.0.53"])
        #expect(hints.captivePortalURL == nil)
    }

    @Test("dhcpcd: options 6 and 114 from the raw message")
    func dhcpcd() throws {
        let root = try TemporaryDirectory()
        defer { root.remove() }
        let lease = dhcpcdLease(
            yiaddr: [192, 168, 7, 20],
            options: option(53, [5]) + option(6, [192, 168, 7, 1]) + option(114, Array("https://login.hotel.example/api".utf8)))
        try FileManager.default.createDirectory(atPath: root.path + "/var/lib/dhcpcd", withIntermediateDirectories: true)
        try lease.write(to: URL(fileURLWithPath: root.path + "/var/lib/dhcpcd/wlan0-Hotel.lease"))
        let hints = try #require(DHCPLeaseReader(root: root.path).hints(interface: "wlan0", index: 9, currentIPv4: ["192.168.7.20"]))
        #expect(hints.dnsServers == ["192.168.7.1"])
        #expect(hints.captivePortalURL == "https://login.hotel.example/api")
    }

    @Test("dhclient: domain-name-servers and default-url")
    func dhclient() throws {
        let root = try TemporaryDirectory()
        defer { root.remove() }
        try root.write("var/lib/dhcp/dhclient.eth1.leases", """
            lease {
              interface "eth1";
              fixed-address 172.16.5.9;
              option domain-name-servers 172.16.5.1,172.16.5.2;
              option default-url "http://172.16.5.1/capport";
            }

            """)
        let hints = try #require(DHCPLeaseReader(root: root.path).hints(interface: "eth1", index: 5, currentIPv4: ["172.16.5.9"]))
        #expect(hints.dnsServers == ["172.16.5.1", "172.16.5.2"])
        #expect(hints.captivePortalURL == "http://172.16.5.1/capport")
    }

    @Test("the link state file alone: an IPv6-only link's RA portal")
    func linkStateOnly() throws {
        let root = try TemporaryDirectory()
        defer { root.remove() }
        try root.write("run/systemd/netif/links/6", "DNS=[fe80::1]:53%6\nCAPTIVE_PORTAL=https://ra.example/capport\n")
        let reader = DHCPLeaseReader(root: root.path)
        #expect(reader.hints(interface: "wlan1", index: 6, currentIPv4: []) == nil)
        #expect(reader.networkdLinkState(index: 6) == NetworkdLinkState(dnsServers: ["fe80::1"], captivePortalURL: "https://ra.example/capport"))
        #expect(reader.networkdLinkState(index: 7) == nil)
        #expect(reader.networkdLinkState(index: 0) == nil)
    }
}
