import ReachabilityCore

/// libFuzzer entry point for the DHCP lease parsers: the input is a lease file, read as every
/// format (dhclient's both for one interface and for any), as the parsers must survive a
/// file of another client's format.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDHCPLease(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let contents = Array(UnsafeBufferPointer(start: data, count: size))
    for format in DHCPLeaseFormat.allCases {
        check(DHCPLeaseParser.hints(format: format, contents: contents, interface: "wlan0"))
        if format == .dhclient { check(DHCPLeaseParser.hints(format: format, contents: contents, interface: nil)) }
    }
    return 0
}

/// The hint is exactly "option 43 holds the marker", and an address is a dotted quad.
private func check(_ hints: DHCPLeaseHints?) {
    guard let hints else { return }
    let marked = hints.vendorSpecific.map(DHCPLeaseParser.containsAndroidMetered) ?? false
    precondition(hints.androidMetered == marked, "hint disagrees with option 43")
    if let address = hints.address {
        let octets = address.split(separator: ".", omittingEmptySubsequences: false)
        precondition(octets.count == 4 && octets.allSatisfy { UInt8($0) != nil }, "bad address '\(address)'")
    }
    _ = hints.description
}
