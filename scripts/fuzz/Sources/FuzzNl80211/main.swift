import ReachabilityCore

/// libFuzzer entry point for nl80211's answers: the input is the attribute bytes of one
/// generic-netlink message (what follows `struct genlmsghdr`), read as an interface, a scan
/// entry and a station, then combined as the watcher combines them.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzNl80211(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let attributes = NetlinkAttributes(bytes)
    precondition(attributes.payloads.count <= 512, "\(attributes.payloads.count) attributes kept")
    precondition(attributes.payloads.values.allSatisfy { $0.count <= size }, "a payload larger than the message")
    let interface = Nl80211Replies.interface(attributes)
    let entry = Nl80211Replies.scanEntry(attributes)
    let station = Nl80211Replies.station(attributes)
    if let entry {
        precondition(entry.bssid.utf8.count == 17, "BSSID text '\(entry.bssid)'")
        precondition(entry.signalDBm.map { (-200...50).contains($0) } ?? true, "signal \(entry.signalDBm ?? 0) dBm")
    }
    if let station {
        precondition((station.transmitRateKbps ?? 0) <= 100_000_000 && (station.receiveRateKbps ?? 0) <= 100_000_000, "rate out of range")
    }
    if let interface {
        let facts = Nl80211Replies.facts(interface: interface, scan: entry.map { [$0] } ?? [], station: station)
        if let link = facts.association {
            precondition(link.bssid == entry?.bssid, "association without its BSS")
            precondition(link.accessPointsWithSSID >= 1, "no access point")
            _ = WifiCost.judge(link)
        }
    }
    return 0
}
