/// nl80211's answers, parsed from the attributes of a generic-netlink message body (what
/// follows `struct genlmsghdr`). Numbers are the kernel's stable ABI (`linux/nl80211.h`).
///
/// Every read is bounds-checked (``NetlinkAttributes``); an answer that lacks what it must
/// carry parses to `nil`.
package enum Nl80211Replies {
    // Commands.
    package static let getInterface: UInt8 = 5
    package static let setInterface: UInt8 = 6
    package static let newInterface: UInt8 = 7
    package static let deleteInterface: UInt8 = 8
    package static let getStation: UInt8 = 17
    package static let getScan: UInt8 = 32
    package static let newScanResults: UInt8 = 34
    // Attributes.
    static let ifindex: UInt16 = 3
    static let iftype: UInt16 = 5
    static let mac: UInt16 = 6
    static let stationInfo: UInt16 = 21
    static let wiphyFrequency: UInt16 = 38
    static let bss: UInt16 = 47
    static let ssid: UInt16 = 52
    // BSS attributes.
    static let bssBSSID: UInt16 = 1
    static let bssFrequency: UInt16 = 2
    static let bssInformationElements: UInt16 = 6
    static let bssSignalMBm: UInt16 = 7
    static let bssStatus: UInt16 = 9
    static let bssBeaconIEs: UInt16 = 11
    // Station info.
    static let staSignal: UInt16 = 7
    static let staTransmitRate: UInt16 = 8
    static let staSignalAverage: UInt16 = 13
    static let staReceiveRate: UInt16 = 14
    // Rate info.
    static let rateBitrate16: UInt16 = 1
    static let rateBitrate32: UInt16 = 5

    /// The interface index an event or answer is about (`NL80211_ATTR_IFINDEX`).
    package static func interfaceIndex(_ attributes: NetlinkAttributes) -> Int32? {
        attributes.unsigned(ifindex).map { Int32(truncatingIfNeeded: $0) }
    }

    /// `NL80211_CMD_GET_INTERFACE`'s answer.
    package struct InterfaceReply: Sendable, Hashable {
        package var index: Int32
        package var mode: WifiMode
        package var ssid: [UInt8]?
        package var frequencyMHz: Int?
    }

    /// Parses a `NEW_INTERFACE` message (the answer to `GET_INTERFACE`).
    package static func interface(_ attributes: NetlinkAttributes) -> InterfaceReply? {
        guard let index = interfaceIndex(attributes), let type = attributes.unsigned(iftype) else { return nil }
        let ssidBytes = attributes[ssid].flatMap { $0.count <= 32 ? Array($0) : nil }
        let frequency = attributes.unsigned(wiphyFrequency).flatMap { $0 <= 100_000 ? Int($0) : nil }
        return InterfaceReply(index: index, mode: WifiMode(nl80211: type), ssid: ssidBytes, frequencyMHz: frequency)
    }

    /// One entry of a `GET_SCAN` dump: a BSS the station knows.
    package struct ScanEntry: Sendable, Hashable {
        package var bssid: String
        package var frequencyMHz: Int?
        package var signalDBm: Int?
        /// Associated (or joined, for an ad-hoc network), not merely seen.
        package var isCurrent: Bool
        /// The beacon's elements completed by the latest frame's.
        package var signals: BeaconSignals
    }

    /// Parses a `NEW_SCAN_RESULTS` message of a scan dump.
    package static func scanEntry(_ attributes: NetlinkAttributes) -> ScanEntry? {
        guard let bss = attributes.nested(bss), let bssidBytes = bss[bssBSSID], let bssid = WifiAssociation.macText(bssidBytes) else { return nil }
        let beacon = bss[bssBeaconIEs].map(InformationElements.signals) ?? BeaconSignals()
        let latest = bss[bssInformationElements].map(InformationElements.signals) ?? BeaconSignals()
        let status = bss.unsigned(bssStatus)
        let frequency = bss.unsigned(bssFrequency).flatMap { $0 <= 100_000 ? Int($0) : nil }
        // mBm is 100 × dBm; a value out of any radio's range is dropped rather than shown.
        let signal = bss.int32(bssSignalMBm).flatMap { (-20_000...5_000).contains($0) ? Int($0) / 100 : nil }
        return ScanEntry(bssid: bssid, frequencyMHz: frequency, signalDBm: signal, isCurrent: status == 1 || status == 2, signals: beacon.merged(with: latest))
    }

    /// A station's link as `GET_STATION` reports it.
    package struct StationReply: Sendable, Hashable {
        package var peer: String
        package var signalDBm: Int?
        package var transmitRateKbps: Int?
        package var receiveRateKbps: Int?
    }

    /// Parses a `NEW_STATION` message (the answer to `GET_STATION`).
    package static func station(_ attributes: NetlinkAttributes) -> StationReply? {
        guard let macBytes = attributes[mac], let peer = WifiAssociation.macText(macBytes), let info = attributes.nested(stationInfo) else { return nil }
        // Signals are s8 dBm; 0 means "not measured".
        func dBm(_ type: UInt16) -> Int? {
            guard let raw = info.unsigned(type), let payload = info[type], payload.count == 1 else { return nil }
            let value = Int(Int8(bitPattern: UInt8(truncatingIfNeeded: raw)))
            return value == 0 ? nil : value
        }
        func rate(_ type: UInt16) -> Int? {
            guard let rate = info.nested(type) else { return nil }
            // Units of 100 kbit/s; the 32-bit form exists for rates past 6.5 Gbit/s.
            guard let units = rate.unsigned(rateBitrate32) ?? rate.unsigned(rateBitrate16), units > 0, units <= 1_000_000 else { return nil }
            return Int(units) * 100
        }
        return StationReply(
            peer: peer, signalDBm: dBm(staSignalAverage) ?? dBm(staSignal), transmitRateKbps: rate(staTransmitRate),
            receiveRateKbps: rate(staReceiveRate))
    }

    /// What the three answers say together: the interface's mode and, when one BSS is current,
    /// the association (SSID from the interface, else from the BSS's elements).
    package static func facts(interface: InterfaceReply, scan: [ScanEntry], station: StationReply?) -> WifiFacts {
        guard interface.mode.isClient,
              let current = scan.first(where: \.isCurrent)
        else { return WifiFacts(mode: interface.mode) }
        let ssidBytes = interface.ssid ?? current.signals.ssid
        let sameSSID = ssidBytes.map { bytes in scan.filter { $0.signals.ssid == bytes }.count } ?? 1
        let link = station?.peer == current.bssid ? station : nil
        // The SSID is the association's own field; the beacon keeps only the cost signals.
        var beacon = current.signals
        beacon.ssid = nil
        return WifiFacts(
            mode: interface.mode,
            association: WifiAssociation(
                ssid: ssidBytes.map(WifiAssociation.ssidText), bssid: current.bssid,
                frequencyMHz: interface.frequencyMHz ?? current.frequencyMHz, signalDBm: link?.signalDBm ?? current.signalDBm,
                transmitRateKbps: link?.transmitRateKbps, receiveRateKbps: link?.receiveRateKbps,
                beacon: beacon, accessPointsWithSSID: max(1, sameSSID)))
    }
}
