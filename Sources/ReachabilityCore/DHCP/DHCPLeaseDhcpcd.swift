/// dhcpcd lease files (`IFACE.lease`, `IFACE-SSID.lease`, older `dhcpcd-IFACE.lease`).
///
/// Format followed: dhcpcd 5 through 10 write the DHCP reply they bound to, as received: a
/// BOOTP message (RFC 951 / RFC 2131 §2) with no framing or header of dhcpcd's own. dhcpcd 5
/// and 6 cut the file just before the END option (so it may have no 255 byte at all); dhcpcd 7
/// and later write the message length as received. The file's mtime is the lease start, which
/// this pure parser does not see. (`IFACE.lease6` files hold DHCPv6 messages, which have no
/// option 43, and are not read.)
///
/// ```
/// offset  size  field
///      0     1  op (2 = BOOTREPLY)
///      1     1  htype
///      2     1  hlen
///      3     1  hops
///      4     4  xid
///      8     2  secs
///     10     2  flags
///     12     4  ciaddr
///     16     4  yiaddr   (the leased address)
///     20     4  siaddr
///     24     4  giaddr
///     28    16  chaddr
///     44    64  sname    (options when overload bit 2 is set)
///    108   128  file     (options when overload bit 1 is set)
///    236     4  magic cookie 99.130.83.99
///    240     …  options: code, length, data; 0 = pad (no length), 255 = end
/// ```
///
/// Parsing follows RFC 2131 §4.1 and RFC 3396: options are read from the options field, then
/// from `file` and then `sname` when option 52 (overload) says so; several instances of options
/// 43, 6 and 114 are concatenated in that order. Every read is bounds-checked: an option whose length runs
/// past its area ends that area (options before it still count).
extension DHCPLeaseParser {
    /// BOOTP magic cookie that marks DHCP options (RFC 2131 §3).
    static let magicCookie: [UInt8] = [99, 130, 83, 99]

    /// The `ANDROID_METERED` hint, address, DNS servers (option 6) and captive-portal URL
    /// (option 114) in a dhcpcd lease file.
    ///
    /// - Returns: `nil` when `bytes` is not a DHCP message: shorter than the 236-byte BOOTP
    ///   header plus the 4-byte cookie, or without the magic cookie.
    public static func hints(dhcpcd bytes: [UInt8]) -> DHCPLeaseHints? {
        let headerLength = 236
        guard bytes.count >= headerLength + magicCookie.count,
            bytes[headerLength..<(headerLength + magicCookie.count)].elementsEqual(magicCookie)
        else { return nil }

        var scan = OptionScan()
        scan.read(bytes, from: headerLength + magicCookie.count, to: bytes.count)
        if let overload = scan.overload {
            if overload & 1 != 0 { scan.read(bytes, from: 108, to: 236) }
            if overload & 2 != 0 { scan.read(bytes, from: 44, to: 108) }
        }
        let address = dottedQuad(bytes, at: 16) ?? dottedQuad(bytes, at: 12)
        return DHCPLeaseHints(
            vendorSpecific: scan.options[vendorSpecificOption], address: address,
            dnsServers: scan.options[dnsServersOption].map { dnsServers(option: $0) } ?? [],
            captivePortalURL: scan.options[captivePortalOption].flatMap(captivePortalURL))
    }

    /// Options 43, 6 and 114 (each instance appended to the ones before, RFC 3396) and option
    /// 52 collected across the option areas.
    private struct OptionScan {
        static let collected: Set<UInt8> = [vendorSpecificOption, dnsServersOption, captivePortalOption]
        var options: [UInt8: [UInt8]] = [:]
        var overload: UInt8?

        /// Reads the options in `bytes[start..<end]` up to END, the end of the area, or the
        /// first option that does not fit.
        mutating func read(_ bytes: [UInt8], from start: Int, to end: Int) {
            let end = min(end, bytes.count)
            var index = start
            while index < end {
                let code = bytes[index]
                if code == 0 {
                    index += 1
                    continue
                }
                if code == 255 { return }
                guard index + 1 < end else { return }
                let length = Int(bytes[index + 1])
                let dataStart = index + 2
                guard dataStart + length <= end else { return }
                if Self.collected.contains(code) {
                    options[code, default: []] += bytes[dataStart..<(dataStart + length)]
                } else if code == 52, length >= 1, overload == nil {
                    overload = bytes[dataStart]
                }
                index = dataStart + length
            }
        }
    }
}
