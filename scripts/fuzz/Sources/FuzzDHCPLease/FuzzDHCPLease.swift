import ReachabilityCore

/// libFuzzer entry point for the DHCP lease parsers: the input is a lease file, read as every
/// format (dhclient's both for one interface and for any), as the parsers must survive a
/// file of another client's format; and as a networkd link state file.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDHCPLease(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let contents = Array(UnsafeBufferPointer(start: data, count: size))
    for format in DHCPLeaseFormat.allCases {
        check(DHCPLeaseParser.hints(format: format, contents: contents, interface: "wlan0"))
        if format == .dhclient { check(DHCPLeaseParser.hints(format: format, contents: contents, interface: nil)) }
    }
    let state = NetworkdLinkState(parsing: String(decoding: contents, as: UTF8.self))
    precondition(state.dnsServers.allSatisfy { !$0.isEmpty && !$0.contains("%") && !$0.contains("[") }, "bad server in \(state)")
    if let url = state.captivePortalURL { precondition(DHCPLeaseParser.captivePortalURL(Array(url.utf8)) == url, "portal URL not kept") }
    return 0
}

/// The hint is exactly "option 43 holds the marker", an address and every DNS server is a
/// dotted quad (servers listed once), and a portal URL is one the validator keeps as it is.
private func check(_ hints: DHCPLeaseHints?) {
    guard let hints else { return }
    let marked = hints.vendorSpecific.map(DHCPLeaseParser.containsAndroidMetered) ?? false
    precondition(hints.androidMetered == marked, "hint disagrees with option 43")
    for address in [hints.address].compactMap({ $0 }) + hints.dnsServers {
        let octets = address.split(separator: ".", omittingEmptySubsequences: false)
        precondition(octets.count == 4 && octets.allSatisfy { UInt8($0) != nil }, "bad address '\(address)'")
    }
    precondition(Set(hints.dnsServers).count == hints.dnsServers.count, "a DNS server listed twice")
    if let url = hints.captivePortalURL {
        precondition(DHCPLeaseParser.captivePortalURL(Array(url.utf8)) == url, "portal URL '\(url)' not kept as is")
        precondition(url.utf8.count <= DHCPLeaseParser.captivePortalURLLimit, "portal URL too long")
    }
    _ = hints.description
}
