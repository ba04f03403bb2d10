import ReachabilityCore

/// libFuzzer entry point for the 802.11 information-element walker: the input is one set of
/// elements as a beacon or probe response carries them. The signals must be what the walker
/// can know (an SSID of at most 32 bytes, an access network type of 4 bits), judging them must
/// not trap, and a suffix appended must never change what the prefix said first.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzInformationElements(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let signals = InformationElements.signals(bytes)
    precondition((signals.ssid?.count ?? 0) <= 32, "SSID of \(signals.ssid?.count ?? 0) bytes")
    precondition((signals.accessNetworkType ?? 0) <= 15, "access network type \(signals.accessNetworkType ?? 0)")
    precondition(InformationElements.signals(bytes) == signals, "not deterministic")
    // Whatever the access point named itself, the text shown has no control character left.
    let shown = WifiAssociation.ssidText(bytes)
    precondition(!shown.unicodeScalars.contains { $0.properties.generalCategory == .control }, "a control character in '\(shown)'")
    let association = WifiAssociation(
        ssid: signals.ssid.map(WifiAssociation.ssidText), bssid: bytes.count >= 6 ? WifiAssociation.macText(bytes.prefix(6))! : "02:1a:11:00:00:01",
        beacon: signals)
    let judgement = WifiCost.judge(association)
    precondition(judgement.evidence.filter { $0.note?.hasSuffix("decides the cost") == true }.count == (judgement.isMetered ? 1 : 0), "decided twice")
    // The walk is a prefix walk: elements already read keep their values whatever follows.
    let extended = InformationElements.signals(bytes + [0xDD, 0x08, 0x00, 0x50, 0xF2, 0x11, 0x04, 0x00, 0x0F, 0x00])
    if let cost = signals.networkCost { precondition(extended.networkCost == cost, "a later element replaced the first cost element") }
    return 0
}
