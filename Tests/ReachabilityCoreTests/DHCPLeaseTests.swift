import ReachabilityCore
import Testing

private let meteredBytes: [UInt8] = Array("ANDROID_METERED".utf8)
/// A sub-option ahead of the marker: code 1, length 4, 192.168.43.1.
private let subOptionThenMetered: [UInt8] = [0x01, 0x04, 0xC0, 0xA8, 0x2B, 0x01] + meteredBytes

/// What a parser should report.
struct ExpectedHints: Sendable, CustomStringConvertible {
    var metered: Bool
    var vendorSpecific: [UInt8]?
    var address: String?
    var description: String { "metered=\(metered) option43=\(vendorSpecific.map { "\($0.count)B" } ?? "none") address=\(address ?? "none")" }
}

// MARK: - systemd-networkd and NetworkManager

/// One KEY=VALUE lease file and what it yields.
struct KeyValueLeaseCase: Sendable, CustomTestStringConvertible {
    var label: String
    var format: DHCPLeaseFormat
    var text: String
    var expected: ExpectedHints
    var testDescription: String { "\(format): \(label)" }
}

private let networkdMetered = """
    # This is private data. Do not parse.
    ADDRESS=192.168.43.37
    NETMASK=255.255.255.0
    ROUTER=192.168.43.1
    SERVER_ADDRESS=192.168.43.1
    BROADCAST=192.168.43.255
    T1=30min
    T2=52min 30s
    LIFETIME=1h
    DNS=192.168.43.1
    HOSTNAME=laptop
    CLIENTID=ff5a6b2c7d00020000ab11c0ffee0042a1b2
    VENDOR_SPECIFIC=414e44524f49445f4d455445524544

    """

private let networkdHome = """
    # This is private data. Do not parse.
    ADDRESS=192.168.1.23
    NETMASK=255.255.255.0
    ROUTER=192.168.1.1
    SERVER_ADDRESS=192.168.1.1
    T1=12h
    T2=21h
    LIFETIME=1d
    DNS=192.168.1.1
    DOMAINNAME=lan
    CLIENTID=ff5a6b2c7d00020000ab11c0ffee0042a1b2

    """

private let keyValueCases: [KeyValueLeaseCase] = [
    KeyValueLeaseCase(
        label: "Android hotspot, hex as systemd writes it", format: .networkd, text: networkdMetered,
        expected: ExpectedHints(metered: true, vendorSpecific: meteredBytes, address: "192.168.43.37")),
    KeyValueLeaseCase(
        label: "home router, no option 43", format: .networkd, text: networkdHome,
        expected: ExpectedHints(metered: false, vendorSpecific: nil, address: "192.168.1.23")),
    KeyValueLeaseCase(
        label: "upper-case hex", format: .networkd,
        text: "ADDRESS=10.0.0.5\nVENDOR_SPECIFIC=414E44524F49445F4D455445524544\n",
        expected: ExpectedHints(metered: true, vendorSpecific: meteredBytes, address: "10.0.0.5")),
    KeyValueLeaseCase(
        label: "plain text value", format: .networkd, text: "VENDOR_SPECIFIC=ANDROID_METERED\n",
        expected: ExpectedHints(metered: true, vendorSpecific: meteredBytes, address: nil)),
    KeyValueLeaseCase(
        label: "colon-separated hex", format: .networkd,
        text: "VENDOR_SPECIFIC=41:4e:44:52:4f:49:44:5f:4d:45:54:45:52:45:44\n",
        expected: ExpectedHints(metered: true, vendorSpecific: meteredBytes, address: nil)),
    KeyValueLeaseCase(
        label: "marker after another sub-option", format: .networkd,
        text: "ADDRESS=192.168.43.37\nVENDOR_SPECIFIC=0104c0a82b01414e44524f49445f4d455445524544\n",
        expected: ExpectedHints(metered: true, vendorSpecific: subOptionThenMetered, address: "192.168.43.37")),
    KeyValueLeaseCase(
        label: "other vendor data only", format: .networkd,
        text: "ADDRESS=10.1.2.3\nVENDOR_SPECIFIC=0104c0a80001\n",
        expected: ExpectedHints(metered: false, vendorSpecific: [0x01, 0x04, 0xC0, 0xA8, 0x00, 0x01], address: "10.1.2.3")),
    KeyValueLeaseCase(
        label: "a different case of the marker is not the marker", format: .networkd,
        text: "VENDOR_SPECIFIC=android_metered\n",
        expected: ExpectedHints(metered: false, vendorSpecific: Array("android_metered".utf8), address: nil)),
    KeyValueLeaseCase(
        label: "quoted value, spaces, CRLF", format: .networkd,
        text: "# This is private data. Do not parse.\r\n ADDRESS = 192.168.43.37 \r\nVENDOR_SPECIFIC=\"414e44524f49445f4d455445524544\"\r\n",
        expected: ExpectedHints(metered: true, vendorSpecific: meteredBytes, address: "192.168.43.37")),
    KeyValueLeaseCase(
        label: "the last assignment wins", format: .networkd,
        text: "VENDOR_SPECIFIC=414e44524f49445f4d455445524544\nVENDOR_SPECIFIC=0104c0a80001\n",
        expected: ExpectedHints(metered: false, vendorSpecific: [0x01, 0x04, 0xC0, 0xA8, 0x00, 0x01], address: nil)),
    KeyValueLeaseCase(
        label: "commented out", format: .networkd,
        text: "#VENDOR_SPECIFIC=414e44524f49445f4d455445524544\n;VENDOR_SPECIFIC=ANDROID_METERED\n",
        expected: ExpectedHints(metered: false, vendorSpecific: nil, address: nil)),
    KeyValueLeaseCase(
        label: "odd-length hex is kept as text", format: .networkd, text: "VENDOR_SPECIFIC=414e4\n",
        expected: ExpectedHints(metered: false, vendorSpecific: Array("414e4".utf8), address: nil)),
    KeyValueLeaseCase(
        label: "empty value is an empty option", format: .networkd, text: "VENDOR_SPECIFIC=\n",
        expected: ExpectedHints(metered: false, vendorSpecific: [], address: nil)),
    KeyValueLeaseCase(
        label: "malformed address ignored", format: .networkd,
        text: "ADDRESS=192.168.43.999\nVENDOR_SPECIFIC=414e44524f49445f4d455445524544\n",
        expected: ExpectedHints(metered: true, vendorSpecific: meteredBytes, address: nil)),
    KeyValueLeaseCase(
        label: "not a lease at all", format: .networkd, text: "lease {\n  interface \"wlan0\";\n}\n\u{0}\u{1}==\n=x\n",
        expected: ExpectedHints(metered: false, vendorSpecific: nil, address: nil)),
    KeyValueLeaseCase(
        label: "empty file", format: .networkd, text: "",
        expected: ExpectedHints(metered: false, vendorSpecific: nil, address: nil)),
    KeyValueLeaseCase(
        label: "nettools client: address only", format: .networkManager,
        text: "# This is private data. Do not parse.\nADDRESS=10.42.0.57\n",
        expected: ExpectedHints(metered: false, vendorSpecific: nil, address: "10.42.0.57")),
    KeyValueLeaseCase(
        label: "systemd-based internal client (NM 1.20 and older)", format: .networkManager, text: networkdMetered,
        expected: ExpectedHints(metered: true, vendorSpecific: meteredBytes, address: "192.168.43.37")),
]

// MARK: - dhclient

/// One dhclient lease file, the interface asked for, and what it yields (`nil`: no lease).
struct DhclientLeaseCase: Sendable, CustomTestStringConvertible {
    var label: String
    var text: String
    var interface: String?
    var expected: ExpectedHints?
    var testDescription: String { "\(label) [\(interface ?? "any interface")]" }
}

private let dhclientHotspotString = """
    default-duid "\\000\\001\\000\\001+\\341\\3224\\000\\025]\\001\\002\\003";
    lease {
      interface "wlan0";
      fixed-address 192.168.43.37;
      option subnet-mask 255.255.255.0;
      option routers 192.168.43.1;
      option dhcp-lease-time 3600;
      option dhcp-message-type 5;
      option domain-name-servers 192.168.43.1;
      option dhcp-server-identifier 192.168.43.1;
      option vendor-encapsulated-options "ANDROID_METERED";
      option dhcp-renewal-time 1800;
      option dhcp-rebinding-time 3150;
      option broadcast-address 192.168.43.255;
      renew 2 2024/01/16 10:20:30;
      rebind 2 2024/01/16 10:45:00;
      expire 2 2024/01/16 10:50:00;
    }

    """

private func dhclientBlock(interface: String, address: String, vendorOption: String?, comment: String = "") -> String {
    var text = "lease {\(comment)\n  interface \"\(interface)\";\n  fixed-address \(address);\n"
    text += "  option subnet-mask 255.255.255.0;\n  option routers \(address.split(separator: ".").prefix(3).joined(separator: ".")).1;\n"
    if let vendorOption { text += "  option vendor-encapsulated-options \(vendorOption);\n" }
    text += "  renew 4 2024/03/07 08:00:00;\n  expire 4 2024/03/07 20:00:00;\n}\n"
    return text
}

private let hexMetered = "41:4e:44:52:4f:49:44:5f:4d:45:54:45:52:45:44"

private let dhclientCases: [DhclientLeaseCase] = [
    DhclientLeaseCase(
        label: "Android hotspot, quoted string", text: dhclientHotspotString, interface: "wlan0",
        expected: ExpectedHints(metered: true, vendorSpecific: meteredBytes, address: "192.168.43.37")),
    DhclientLeaseCase(
        label: "no interface filter takes the last block", text: dhclientHotspotString, interface: nil,
        expected: ExpectedHints(metered: true, vendorSpecific: meteredBytes, address: "192.168.43.37")),
    DhclientLeaseCase(label: "other interface has no lease", text: dhclientHotspotString, interface: "eth0", expected: nil),
    DhclientLeaseCase(label: "interface names are exact", text: dhclientHotspotString, interface: "wlan", expected: nil),
    DhclientLeaseCase(
        label: "hex form", text: dhclientBlock(interface: "wlan0", address: "192.168.43.37", vendorOption: hexMetered),
        interface: "wlan0", expected: ExpectedHints(metered: true, vendorSpecific: meteredBytes, address: "192.168.43.37")),
    DhclientLeaseCase(
        label: "hex with unpadded bytes and a sub-option first (%x output)",
        text: dhclientBlock(interface: "wlan0", address: "192.168.43.37", vendorOption: "1:4:c0:a8:2b:1:" + hexMetered),
        interface: "wlan0",
        expected: ExpectedHints(metered: true, vendorSpecific: subOptionThenMetered, address: "192.168.43.37")),
    DhclientLeaseCase(
        label: "hex vendor data without the marker",
        text: dhclientBlock(interface: "eth0", address: "10.0.0.9", vendorOption: "1:4:a:0:0:1"), interface: "eth0",
        expected: ExpectedHints(metered: false, vendorSpecific: [1, 4, 10, 0, 0, 1], address: "10.0.0.9")),
    DhclientLeaseCase(
        label: "octal escape inside the string",
        text: dhclientBlock(interface: "wlan0", address: "192.168.43.37", vendorOption: "\"ANDROID\\137METERED\""),
        interface: "wlan0", expected: ExpectedHints(metered: true, vendorSpecific: meteredBytes, address: "192.168.43.37")),
    DhclientLeaseCase(
        label: "no option 43", text: dhclientBlock(interface: "eth0", address: "192.168.1.23", vendorOption: nil),
        interface: "eth0", expected: ExpectedHints(metered: false, vendorSpecific: nil, address: "192.168.1.23")),
    DhclientLeaseCase(
        label: "last block for the interface wins (metered, then home)",
        text: dhclientBlock(interface: "wlan0", address: "192.168.43.37", vendorOption: "\"ANDROID_METERED\"")
            + dhclientBlock(interface: "eth0", address: "10.0.0.9", vendorOption: "\"ANDROID_METERED\"")
            + dhclientBlock(interface: "wlan0", address: "192.168.1.23", vendorOption: nil),
        interface: "wlan0", expected: ExpectedHints(metered: false, vendorSpecific: nil, address: "192.168.1.23")),
    DhclientLeaseCase(
        label: "last block for the interface wins (home, then metered, then another interface)",
        text: dhclientBlock(interface: "wlan0", address: "192.168.1.23", vendorOption: nil)
            + dhclientBlock(interface: "wlan0", address: "192.168.43.37", vendorOption: hexMetered)
            + dhclientBlock(interface: "eth0", address: "10.0.0.9", vendorOption: nil),
        interface: "wlan0", expected: ExpectedHints(metered: true, vendorSpecific: meteredBytes, address: "192.168.43.37")),
    DhclientLeaseCase(
        label: "other interfaces' blocks are ignored",
        text: dhclientBlock(interface: "wlan0", address: "192.168.1.23", vendorOption: nil)
            + dhclientBlock(interface: "wlan0", address: "192.168.43.37", vendorOption: hexMetered)
            + dhclientBlock(interface: "eth0", address: "10.0.0.9", vendorOption: nil),
        interface: "eth0", expected: ExpectedHints(metered: false, vendorSpecific: nil, address: "10.0.0.9")),
    DhclientLeaseCase(
        label: "strings with braces, semicolons and hashes; comments",
        text: """
            # The format of this file is documented in the dhclient.leases(5) manual page.
            lease { # current
              interface "wlan0";
              fixed-address 192.168.43.37;
              option domain-name "odd;name{}#x";
              option vendor-encapsulated-options "ANDROID_METERED"; # from the phone
            }

            """,
        interface: "wlan0", expected: ExpectedHints(metered: true, vendorSpecific: meteredBytes, address: "192.168.43.37")),
    DhclientLeaseCase(
        label: "lease6 blocks with nested blocks are skipped",
        text: dhclientBlock(interface: "wlan0", address: "192.168.43.37", vendorOption: "\"ANDROID_METERED\"")
            + """
            lease6 {
              interface "wlan0";
              ia-na 1a:2b:3c:4d {
                starts 1709798400;
                iaaddr 2001:db8::5 { starts 1709798400; preferred-life 3600; }
              }
              option dhcp6.vendor-opts "not a lease";
            }

            """,
        interface: "wlan0", expected: ExpectedHints(metered: true, vendorSpecific: meteredBytes, address: "192.168.43.37")),
    DhclientLeaseCase(
        label: "a block cut off by the end of the file is ignored",
        text: dhclientBlock(interface: "wlan0", address: "192.168.43.37", vendorOption: "\"ANDROID_METERED\"")
            + "lease {\n  interface \"wlan0\";\n  fixed-address 192.168.1.23;\n  option subnet-m",
        interface: "wlan0", expected: ExpectedHints(metered: true, vendorSpecific: meteredBytes, address: "192.168.43.37")),
    DhclientLeaseCase(
        label: "unterminated string", text: "lease {\n interface \"wlan0;\n option vendor-encapsulated-options \"ANDROID_METERED",
        interface: "wlan0", expected: nil),
    DhclientLeaseCase(label: "empty file", text: "", interface: "wlan0", expected: nil),
    DhclientLeaseCase(label: "garbage", text: "}}}{;;\"\\\u{0}lease lease { } { ;", interface: "wlan0", expected: nil),
    DhclientLeaseCase(
        label: "an empty block matches only 'any interface'", text: "lease { }\n", interface: nil,
        expected: ExpectedHints(metered: false, vendorSpecific: nil, address: nil)),
]

// MARK: - dhcpcd

/// A DHCPACK as dhcpcd stores it: BOOTP header, cookie, options.
private func dhcpMessage(
    yiaddr: [UInt8] = [192, 168, 43, 37], options: [UInt8], sname: [UInt8] = [], file: [UInt8] = [], cookie: [UInt8] = [99, 130, 83, 99]
) -> [UInt8] {
    var message = [UInt8](repeating: 0, count: 236)
    message[0] = 2  // BOOTREPLY
    message[1] = 1  // Ethernet
    message[2] = 6
    message.replaceSubrange(4..<8, with: [0x3C, 0x1F, 0x9A, 0x42])  // xid
    message.replaceSubrange(16..<20, with: yiaddr)
    message.replaceSubrange(28..<34, with: [0x5A, 0x6B, 0x2C, 0x7D, 0x00, 0x02])  // chaddr
    message.replaceSubrange(44..<(44 + min(sname.count, 64)), with: sname.prefix(64))
    message.replaceSubrange(108..<(108 + min(file.count, 128)), with: file.prefix(128))
    return message + cookie + options
}

private func option(_ code: UInt8, _ data: [UInt8]) -> [UInt8] { [code, UInt8(data.count)] + data }

/// The options of an Android hotspot's DHCPACK, with `vendor` as option 43 when given.
private func ackOptions(vendor: [UInt8]?) -> [UInt8] {
    var bytes = option(53, [5]) + option(54, [192, 168, 43, 1]) + option(51, [0, 0, 0x0E, 0x10])
    bytes += option(58, [0, 0, 0x07, 0x08]) + option(59, [0, 0, 0x0C, 0x4E]) + option(1, [255, 255, 255, 0])
    bytes += option(28, [192, 168, 43, 255]) + option(3, [192, 168, 43, 1]) + option(6, [192, 168, 43, 1])
    if let vendor { bytes += option(43, vendor) }
    return bytes
}

private let meteredAck = dhcpMessage(options: ackOptions(vendor: meteredBytes) + [255])

/// One dhcpcd lease file and what it yields (`nil`: not a DHCP message).
struct DhcpcdLeaseCase: Sendable, CustomTestStringConvertible {
    var label: String
    var bytes: [UInt8]
    var expected: ExpectedHints?
    var testDescription: String { label }
}

private let dhcpcdCases: [DhcpcdLeaseCase] = [
    DhcpcdLeaseCase(
        label: "Android hotspot ACK", bytes: meteredAck,
        expected: ExpectedHints(metered: true, vendorSpecific: meteredBytes, address: "192.168.43.37")),
    DhcpcdLeaseCase(
        label: "home router ACK, no option 43",
        bytes: dhcpMessage(yiaddr: [192, 168, 1, 23], options: ackOptions(vendor: nil) + [255]),
        expected: ExpectedHints(metered: false, vendorSpecific: nil, address: "192.168.1.23")),
    DhcpcdLeaseCase(
        label: "no END byte (dhcpcd 5-6 cut the file before it)", bytes: dhcpMessage(options: ackOptions(vendor: meteredBytes)),
        expected: ExpectedHints(metered: true, vendorSpecific: meteredBytes, address: "192.168.43.37")),
    DhcpcdLeaseCase(
        label: "marker after another sub-option", bytes: dhcpMessage(options: ackOptions(vendor: subOptionThenMetered) + [255]),
        expected: ExpectedHints(metered: true, vendorSpecific: subOptionThenMetered, address: "192.168.43.37")),
    DhcpcdLeaseCase(
        label: "option 43 split in two instances (RFC 3396)",
        bytes: dhcpMessage(options: option(53, [5]) + option(43, Array("ANDROID_".utf8)) + option(3, [192, 168, 43, 1])
            + option(43, Array("METERED".utf8)) + [255]),
        expected: ExpectedHints(metered: true, vendorSpecific: meteredBytes, address: "192.168.43.37")),
    DhcpcdLeaseCase(
        label: "pad bytes between options and trailing padding",
        bytes: dhcpMessage(options: [0, 0] + option(53, [5]) + [0] + option(43, meteredBytes) + [0, 255, 0, 0, 0, 0]),
        expected: ExpectedHints(metered: true, vendorSpecific: meteredBytes, address: "192.168.43.37")),
    DhcpcdLeaseCase(
        label: "options after END are ignored",
        bytes: dhcpMessage(options: option(53, [5]) + [255] + option(43, meteredBytes)),
        expected: ExpectedHints(metered: false, vendorSpecific: nil, address: "192.168.43.37")),
    DhcpcdLeaseCase(
        label: "option 43 in the file field (overload 1)",
        bytes: dhcpMessage(options: option(53, [5]) + option(52, [1]) + [255], file: option(43, meteredBytes) + [255]),
        expected: ExpectedHints(metered: true, vendorSpecific: meteredBytes, address: "192.168.43.37")),
    DhcpcdLeaseCase(
        label: "option 43 split across options, file and sname (overload 3)",
        bytes: dhcpMessage(
            options: option(53, [5]) + option(52, [3]) + option(43, Array("ANDR".utf8)) + [255],
            sname: option(43, Array("ERED".utf8)) + [255], file: option(43, Array("OID_MET".utf8)) + [255]),
        expected: ExpectedHints(metered: true, vendorSpecific: meteredBytes, address: "192.168.43.37")),
    DhcpcdLeaseCase(
        label: "file field is not read without overload",
        bytes: dhcpMessage(options: option(53, [5]) + [255], file: option(43, meteredBytes) + [255]),
        expected: ExpectedHints(metered: false, vendorSpecific: nil, address: "192.168.43.37")),
    DhcpcdLeaseCase(
        label: "option 43 whose length runs past the end",
        bytes: dhcpMessage(options: option(53, [5]) + [43, 200] + meteredBytes),
        expected: ExpectedHints(metered: false, vendorSpecific: nil, address: "192.168.43.37")),
    DhcpcdLeaseCase(
        label: "a code with no length byte at the end", bytes: dhcpMessage(options: option(53, [5]) + [43]),
        expected: ExpectedHints(metered: false, vendorSpecific: nil, address: "192.168.43.37")),
    DhcpcdLeaseCase(
        label: "empty option 43", bytes: dhcpMessage(options: option(43, []) + [255]),
        expected: ExpectedHints(metered: false, vendorSpecific: [], address: "192.168.43.37")),
    DhcpcdLeaseCase(
        label: "no address in yiaddr", bytes: dhcpMessage(yiaddr: [0, 0, 0, 0], options: option(43, meteredBytes)),
        expected: ExpectedHints(metered: true, vendorSpecific: meteredBytes, address: nil)),
    DhcpcdLeaseCase(
        label: "header and cookie only", bytes: dhcpMessage(options: []),
        expected: ExpectedHints(metered: false, vendorSpecific: nil, address: "192.168.43.37")),
    DhcpcdLeaseCase(label: "wrong magic cookie", bytes: dhcpMessage(options: option(43, meteredBytes), cookie: [99, 130, 83, 98]), expected: nil),
    DhcpcdLeaseCase(label: "truncated inside the header", bytes: Array(meteredAck.prefix(200)), expected: nil),
    DhcpcdLeaseCase(label: "truncated inside the cookie", bytes: Array(meteredAck.prefix(238)), expected: nil),
    DhcpcdLeaseCase(label: "empty file", bytes: [], expected: nil),
    DhcpcdLeaseCase(label: "a text lease is not a DHCP message", bytes: Array(networkdMetered.utf8), expected: nil),
]

// MARK: - Lease file candidates

/// A file name the candidates for `wlan0` (index 3) should or should not accept, and its format.
struct CandidateNameCase: Sendable, CustomTestStringConvertible {
    var path: String
    var format: DHCPLeaseFormat?
    var testDescription: String { "\(path) -> \(format.map(\.rawValue) ?? "not a candidate")" }
}

private let candidateNameCases: [CandidateNameCase] = [
    CandidateNameCase(path: "run/systemd/netif/leases/3", format: .networkd),
    CandidateNameCase(path: "run/systemd/netif/leases/4", format: nil),
    CandidateNameCase(path: "var/lib/NetworkManager/internal-5f0c2c6e-8d8b-4a52-9f7e-3b1d2c4e5f60-wlan0.lease", format: .networkManager),
    CandidateNameCase(path: "var/lib/NetworkManager/internal-5f0c2c6e-8d8b-4a52-9f7e-3b1d2c4e5f60-wlan1.lease", format: nil),
    CandidateNameCase(path: "var/lib/NetworkManager/internal6-5f0c2c6e-8d8b-4a52-9f7e-3b1d2c4e5f60-wlan0.lease", format: nil),
    CandidateNameCase(path: "var/lib/NetworkManager/dhclient-5f0c2c6e-8d8b-4a52-9f7e-3b1d2c4e5f60-wlan0.lease", format: .dhclient),
    CandidateNameCase(path: "var/lib/dhcpcd/wlan0.lease", format: .dhcpcd),
    CandidateNameCase(path: "var/lib/dhcpcd/wlan0-MyHotspot.lease", format: .dhcpcd),
    CandidateNameCase(path: "var/lib/dhcpcd/wlan0-MyHotspot.lease6", format: nil),
    CandidateNameCase(path: "var/lib/dhcpcd/wlan0.lease6", format: nil),
    CandidateNameCase(path: "var/db/dhcpcd/wlan0.lease", format: .dhcpcd),
    CandidateNameCase(path: "var/db/dhcpcd/wlan0-Cafe.lease", format: .dhcpcd),
    CandidateNameCase(path: "var/lib/dhcpcd/dhcpcd-wlan0.lease", format: .dhcpcd),
    CandidateNameCase(path: "var/lib/dhcpcd5/dhcpcd-wlan0-MyHotspot.lease", format: .dhcpcd),
    CandidateNameCase(path: "var/db/dhcpcd-wlan0.lease", format: .dhcpcd),
    CandidateNameCase(path: "var/lib/dhcp/dhclient.wlan0.leases", format: .dhclient),
    CandidateNameCase(path: "var/lib/dhcp/dhclient.leases", format: .dhclient),
    CandidateNameCase(path: "var/lib/dhclient/dhclient-wlan0.leases", format: .dhclient),
    CandidateNameCase(path: "var/lib/dhclient/dhclient.leases", format: .dhclient),
    CandidateNameCase(path: "var/lib/dhcp/dhclient.eth0.leases", format: nil),
    CandidateNameCase(path: "var/lib/dhcpcd/eth0.lease", format: nil),
]

/// Whether `path` is named by `candidate`: same directory, and the literal name or the pattern.
private func candidate(_ candidate: DHCPLeaseFileCandidate, names path: String) -> Bool {
    guard let slash = path.lastIndex(of: "/") else { return false }
    let directory = String(path[..<slash])
    let name = String(path[path.index(after: slash)...])
    guard directory == candidate.directory else { return false }
    if let glob = candidate.glob { return glob.matches(name) }
    return name == candidate.fileName
}

// MARK: - Suites

@Suite("DHCP lease parsing")
struct DHCPLeaseTests {
    private func check(_ hints: DHCPLeaseHints?, _ expected: ExpectedHints?) throws {
        guard let expected else {
            #expect(hints == nil)
            return
        }
        let hints = try #require(hints)
        #expect(hints.androidMetered == expected.metered)
        #expect(hints.vendorSpecific == expected.vendorSpecific)
        #expect(hints.address == expected.address)
    }

    @Test("networkd and NetworkManager KEY=VALUE files", arguments: keyValueCases)
    func keyValue(_ row: KeyValueLeaseCase) throws {
        let hints = row.format == .networkd
            ? DHCPLeaseParser.hints(networkd: row.text) : DHCPLeaseParser.hints(networkManager: row.text)
        try check(hints, row.expected)
        // The byte-level entry point agrees.
        try check(DHCPLeaseParser.hints(format: row.format, contents: Array(row.text.utf8), interface: nil), row.expected)
    }

    @Test("dhclient lease blocks", arguments: dhclientCases)
    func dhclient(_ row: DhclientLeaseCase) throws {
        try check(DHCPLeaseParser.hints(dhclient: row.text, interface: row.interface), row.expected)
        try check(
            DHCPLeaseParser.hints(format: .dhclient, contents: Array(row.text.utf8), interface: row.interface), row.expected)
    }

    @Test("dhcpcd raw DHCP messages", arguments: dhcpcdCases)
    func dhcpcd(_ row: DhcpcdLeaseCase) throws {
        try check(DHCPLeaseParser.hints(dhcpcd: row.bytes), row.expected)
        try check(DHCPLeaseParser.hints(format: .dhcpcd, contents: row.bytes, interface: "wlan0"), row.expected)
    }

    @Test("the networkd fixture's hex is the marker systemd's hexmem() would write")
    func fixtureHex() {
        let hex = meteredBytes.map { byte -> String in
            let digits = String(byte, radix: 16)
            return digits.count == 1 ? "0" + digits : digits
        }.joined()
        #expect(hex == "414e44524f49445f4d455445524544")
        #expect(networkdMetered.contains("VENDOR_SPECIFIC=\(hex)\n"))
        #expect(DHCPLeaseParser.androidMeteredMarker == meteredBytes)
    }

    @Test("marker search", arguments: [
        (meteredBytes, true), (subOptionThenMetered, true), (meteredBytes + [0], true), (Array("xANDROID_METEREDx".utf8), true),
        (Array("ANDROID_METERE".utf8), false), (Array("ANDROID METERED".utf8), false), ([], false),
    ])
    func markerSearch(_ payload: [UInt8], _ expected: Bool) {
        #expect(DHCPLeaseParser.containsAndroidMetered(payload) == expected)
    }

    @Test("every prefix of a metered dhcpcd lease parses without trapping")
    func dhcpcdPrefixes() {
        let optionStart = 240
        let markerEnd = meteredAck.count - 1  // the END byte follows option 43, the last option
        for length in 0...meteredAck.count {
            let hints = DHCPLeaseParser.hints(dhcpcd: Array(meteredAck.prefix(length)))
            if length < optionStart {
                #expect(hints == nil, "length \(length)")
            } else {
                #expect(hints?.androidMetered == (length >= markerEnd), "length \(length)")
            }
        }
    }

    @Test("random bytes after a valid header never trap", arguments: [1, 7, 42, 1234])
    func dhcpcdGarbage(_ seed: UInt64) {
        var state = seed
        func next() -> UInt8 {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return UInt8(truncatingIfNeeded: state >> 33)
        }
        for round in 0..<200 {
            let tail = (0..<(round % 60)).map { _ in next() }
            let header = (0..<236).map { _ in next() }
            let message = header + [99, 130, 83, 99] + tail
            let hints = DHCPLeaseParser.hints(dhcpcd: message)
            #expect(hints != nil)
            // The text parsers take the same garbage as UTF-8.
            let text = String(decoding: message, as: UTF8.self)
            _ = DHCPLeaseParser.hints(networkd: text)
            _ = DHCPLeaseParser.hints(dhclient: text, interface: "wlan0")
        }
    }

    @Test("description names the hint")
    func description() {
        #expect(DHCPLeaseHints(androidMetered: true, vendorSpecific: meteredBytes, address: "10.0.0.1").description
            == "ANDROID_METERED, option 43: 15 bytes, address 10.0.0.1")
        #expect(DHCPLeaseHints().description == "no metered hint")
    }
}

@Suite("DHCP lease file candidates")
struct DHCPLeaseFileCandidateTests {
    @Test("names the files each client writes for wlan0", arguments: candidateNameCases)
    func names(_ row: CandidateNameCase) {
        let matching = DHCPLeaseFiles.candidates(interface: "wlan0", index: 3).filter { candidate($0, names: row.path) }
        #expect(Set(matching.map(\.format)) == Set([row.format].compactMap { $0 }))
    }

    @Test("the documented patterns, in order")
    func patterns() {
        let patterns = DHCPLeaseFiles.patterns(interface: "wlan0", index: 3)
        #expect(patterns.map(\.pattern) == [
            "run/systemd/netif/leases/3",
            "var/lib/NetworkManager/internal-*-wlan0.lease",
            "var/lib/NetworkManager/dhclient-*-wlan0.lease",
            "var/lib/dhcpcd/wlan0.lease",
            "var/lib/dhcpcd/wlan0-*.lease",
            "var/db/dhcpcd/wlan0.lease",
            "var/db/dhcpcd/wlan0-*.lease",
            "var/lib/dhcpcd/dhcpcd-wlan0.lease",
            "var/lib/dhcpcd/dhcpcd-wlan0-*.lease",
            "var/lib/dhcpcd5/dhcpcd-wlan0.lease",
            "var/lib/dhcpcd5/dhcpcd-wlan0-*.lease",
            "var/db/dhcpcd-wlan0.lease",
            "var/lib/dhcp/dhclient.wlan0.leases",
            "var/lib/dhclient/dhclient-wlan0.leases",
            "var/lib/dhcp/dhclient.leases",
            "var/lib/dhclient/dhclient.leases",
        ])
        #expect(patterns.first?.format == .networkd)
        #expect(patterns.last?.format == .dhclient)
        let candidates = DHCPLeaseFiles.candidates(interface: "wlan0", index: 3)
        #expect(candidates.allSatisfy { !$0.directory.hasPrefix("/") && !$0.directory.hasSuffix("/") })
        #expect(candidates.allSatisfy { $0.isPattern == ($0.glob != nil) })
        #expect(Set(candidates.map(\.format)) == Set(DHCPLeaseFormat.allCases))
    }

    @Test("no networkd candidate without a valid index")
    func noIndex() {
        #expect(!DHCPLeaseFiles.candidates(interface: "wlan0", index: 0).contains { $0.format == .networkd })
    }

    @Test("names that cannot be a path component yield nothing", arguments: ["", ".", "..", "a/b", "../etc", "x\u{0}y"])
    func unsafeNames(_ name: String) {
        #expect(DHCPLeaseFiles.candidates(interface: name, index: 3).isEmpty)
    }

    @Test("names with glob characters yield only literal candidates", arguments: ["wl*", "wlan?", "e[th]0"])
    func globNames(_ name: String) {
        let candidates = DHCPLeaseFiles.candidates(interface: name, index: 3)
        #expect(!candidates.isEmpty)
        #expect(candidates.allSatisfy { !$0.isPattern })
        #expect(candidates.contains { $0.pattern == "var/lib/dhcpcd/\(name).lease" })
    }
}

// MARK: - DNS servers (option 6) and the captive-portal URL (option 114)

/// One lease in any format and the DNS servers and portal URL it should yield.
struct NetworkOptionsCase: Sendable, CustomTestStringConvertible {
    var label: String
    var format: DHCPLeaseFormat
    var contents: [UInt8]
    var dnsServers: [String]
    var captivePortalURL: String?
    var testDescription: String { "\(format): \(label)" }

    init(_ label: String, _ format: DHCPLeaseFormat, text: String, dns: [String], portal: String?) {
        self.init(label, format, bytes: Array(text.utf8), dns: dns, portal: portal)
    }

    init(_ label: String, _ format: DHCPLeaseFormat, bytes: [UInt8], dns: [String], portal: String?) {
        self.label = label
        self.format = format
        contents = bytes
        dnsServers = dns
        captivePortalURL = portal
    }
}

private let portalURL = "https://portal.example.net/api/capport?venue=cafe"

private func dhclientLease(_ options: String) -> String {
    "lease {\n  interface \"wlan0\";\n  fixed-address 10.20.0.7;\n\(options)  expire 4 2024/03/07 20:00:00;\n}\n"
}

private let networkOptionsCases: [NetworkOptionsCase] = [
    // systemd-networkd and NetworkManager's KEY=VALUE layout.
    NetworkOptionsCase("DNS as systemd writes it", .networkd, text: networkdMetered, dns: ["192.168.43.1"], portal: nil),
    NetworkOptionsCase(
        "several servers and a portal", .networkd,
        text: "ADDRESS=10.20.0.7\nDNS=10.20.0.1 9.9.9.9  10.20.0.1\nCAPTIVE_PORTAL=\(portalURL)\n",
        dns: ["10.20.0.1", "9.9.9.9"], portal: portalURL),
    NetworkOptionsCase(
        "bad entries dropped, quoted value", .networkd, text: "DNS=\"10.20.0.1 300.1.1.1 fe80::1 x 10.20.0.2\"\n",
        dns: ["10.20.0.1", "10.20.0.2"], portal: nil),
    NetworkOptionsCase(
        "a portal that is not http(s) is dropped", .networkd, text: "CAPTIVE_PORTAL=urn:ietf:params:capport:unrestricted\n",
        dns: [], portal: nil),
    NetworkOptionsCase(
        "nettools client: no options at all", .networkManager, text: "ADDRESS=10.42.0.57\n", dns: [], portal: nil),
    NetworkOptionsCase(
        "NetworkManager, systemd-based client", .networkManager, text: "DNS=10.42.0.1\nCAPTIVE_PORTAL=http://10.42.0.1/\n",
        dns: ["10.42.0.1"], portal: "http://10.42.0.1/"),
    // ISC dhclient.
    NetworkOptionsCase("the hotspot fixture", .dhclient, text: dhclientHotspotString, dns: ["192.168.43.1"], portal: nil),
    NetworkOptionsCase(
        "comma-separated servers and default-url", .dhclient,
        text: dhclientLease("  option domain-name-servers 10.20.0.1,10.20.0.2;\n  option default-url \"\(portalURL)\";\n"),
        dns: ["10.20.0.1", "10.20.0.2"], portal: portalURL),
    NetworkOptionsCase(
        "servers with spaces after the commas", .dhclient,
        text: dhclientLease("  option domain-name-servers 10.20.0.1, 10.20.0.2 ,10.20.0.3;\n"),
        dns: ["10.20.0.1", "10.20.0.2", "10.20.0.3"], portal: nil),
    NetworkOptionsCase(
        "option 114 as unknown-114", .dhclient, text: dhclientLease("  option unknown-114 \"http://10.20.0.1/capport\";\n"),
        dns: [], portal: "http://10.20.0.1/capport"),
    NetworkOptionsCase(
        "option 114 as dhclient 3's option-114, in hex", .dhclient,
        text: dhclientLease("  option option-114 " + Array("https://a.b/".utf8).map { String($0, radix: 16) }.joined(separator: ":") + ";\n"),
        dns: [], portal: "https://a.b/"),
    NetworkOptionsCase(
        "a default-url with a space is dropped", .dhclient, text: dhclientLease("  option default-url \"https://a.b/c d\";\n"),
        dns: [], portal: nil),
    NetworkOptionsCase(
        "the last block wins for options too", .dhclient,
        text: dhclientLease("  option domain-name-servers 10.1.1.1;\n  option default-url \"https://old.example/\";\n")
            + dhclientLease("  option domain-name-servers 10.2.2.2;\n"),
        dns: ["10.2.2.2"], portal: nil),
    // dhcpcd: a raw DHCPACK.
    NetworkOptionsCase(
        "options 6 and 114", .dhcpcd,
        bytes: dhcpMessage(options: option(53, [5]) + option(6, [10, 20, 0, 1, 9, 9, 9, 9]) + option(114, Array(portalURL.utf8)) + [255]),
        dns: ["10.20.0.1", "9.9.9.9"], portal: portalURL),
    NetworkOptionsCase(
        "the Android hotspot ACK", .dhcpcd, bytes: meteredAck, dns: ["192.168.43.1"], portal: nil),
    NetworkOptionsCase(
        "option 6 of a length that is not a multiple of 4 is refused whole", .dhcpcd,
        bytes: dhcpMessage(options: option(6, [10, 20, 0, 1, 9]) + [255]), dns: [], portal: nil),
    NetworkOptionsCase(
        "0.0.0.0 entries dropped", .dhcpcd, bytes: dhcpMessage(options: option(6, [0, 0, 0, 0, 10, 20, 0, 1]) + [255]),
        dns: ["10.20.0.1"], portal: nil),
    NetworkOptionsCase(
        "option 114 split in two instances (RFC 3396), trailing NUL", .dhcpcd,
        bytes: dhcpMessage(options: option(114, Array("https://portal".utf8)) + option(3, [10, 20, 0, 1])
            + option(114, Array(".example/".utf8) + [0]) + [255]),
        dns: [], portal: "https://portal.example/"),
    NetworkOptionsCase(
        "option 114 in the file field (overload)", .dhcpcd,
        bytes: dhcpMessage(options: option(52, [1]) + [255], file: option(114, Array("http://10.0.0.1/".utf8)) + [255]),
        dns: [], portal: "http://10.0.0.1/"),
    NetworkOptionsCase(
        "option 114 with a control byte is dropped", .dhcpcd,
        bytes: dhcpMessage(options: option(114, Array("https://a.b/\n".utf8)) + [255]), dns: [], portal: nil),
]

@Suite("DHCP lease DNS servers and captive-portal URL")
struct DHCPLeaseNetworkOptionsTests {
    @Test("each format", arguments: networkOptionsCases)
    func formats(_ row: NetworkOptionsCase) throws {
        let hints = try #require(DHCPLeaseParser.hints(format: row.format, contents: row.contents, interface: "wlan0"))
        #expect(hints.dnsServers == row.dnsServers)
        #expect(hints.captivePortalURL == row.captivePortalURL)
    }

    @Test("which option 114 values are kept", arguments: [
        ("https://portal.example/api", "https://portal.example/api"), ("HTTP://10.0.0.1:8080/x?y=1#z", "HTTP://10.0.0.1:8080/x?y=1#z"),
        ("https://a", "https://a"), ("https://", nil), ("http:/x", nil), ("ftp://portal.example/", nil), ("portal.example", nil),
        ("urn:ietf:params:capport:unrestricted", nil), ("https://a b", nil), ("https://ä.example/", nil), ("", nil),
        ("https://a.b/\u{7F}", nil), ("https://a.b/\u{0}x", nil),
    ] as [(String, String?)])
    func urls(_ text: String, _ kept: String?) {
        #expect(DHCPLeaseParser.captivePortalURL(Array(text.utf8)) == kept)
        #expect(DHCPLeaseParser.captivePortalURL(Array(text.utf8) + [0, 0]) == kept)
    }

    @Test("the URL length limit")
    func urlLimit() {
        let prefix = "https://portal.example/"
        let longest = prefix + String(repeating: "a", count: DHCPLeaseParser.captivePortalURLLimit - prefix.count)
        #expect(DHCPLeaseParser.captivePortalURL(Array(longest.utf8)) == longest)
        #expect(DHCPLeaseParser.captivePortalURL(Array((longest + "a").utf8)) == nil)
    }

    @Test("the description names them")
    func description() {
        let hints = DHCPLeaseHints(address: "10.0.0.5", dnsServers: ["10.0.0.1", "10.0.0.2"], captivePortalURL: "https://p.example/")
        #expect(hints.description == "no metered hint, address 10.0.0.5, DNS 10.0.0.1 10.0.0.2, captive portal API https://p.example/")
    }
}

@Suite("systemd-networkd link state file")
struct NetworkdLinkStateTests {
    @Test("DNS entries in every form networkd writes; the portal URL")
    func parsing() {
        let state = NetworkdLinkState(parsing: """
            # This is private data. Do not parse.
            ADMIN_STATE=configured
            OPER_STATE=routable
            NETWORK_FILE=/run/systemd/network/10-wlan0.network
            DNS=10.20.0.1 [fe80::1]:53%3#dns.example 1.1.1.1:853#cloudflare-dns.com 2001:DB8:0:0::53 9.9.9.9#dns.quad9.net \
            fe80::2%3 10.20.0.1 [2001:db8::54]:5353 bogus 10.0.0.9:53
            NTP=
            CAPTIVE_PORTAL=https://portal.example/capport
            DOMAINS=lan

            """)
        #expect(state.dnsServers == ["10.20.0.1", "fe80::1", "2001:db8::53", "9.9.9.9", "fe80::2", "10.0.0.9"])
        #expect(state.captivePortalURL == "https://portal.example/capport")
    }

    @Test("an empty or foreign file gives an empty state")
    func empty() {
        #expect(NetworkdLinkState(parsing: "") == NetworkdLinkState())
        #expect(NetworkdLinkState(parsing: "lease {\n}\n\u{0}DNS\nCAPTIVE_PORTAL=javascript:alert(1)\n") == NetworkdLinkState())
        #expect(NetworkdLinkState.path(index: 7) == "run/systemd/netif/links/7")
    }
}
