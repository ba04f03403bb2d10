import ReachabilityCore
import Testing

/// Bytes of 802.11 elements and nl80211 attributes, built for the tables below.
enum WifiBytes {
    static func element(_ id: UInt8, _ body: [UInt8]) -> [UInt8] { [id, UInt8(body.count)] + body }
    static func ssid(_ text: String) -> [UInt8] { element(0, Array(text.utf8)) }
    /// Microsoft's Network Cost element as real hotspots send it.
    static func networkCost(level: UInt8, flags: UInt8 = 0) -> [UInt8] { element(221, [0x00, 0x50, 0xF2, 0x11, level, 0x00, flags, 0x00]) }
    static func interworking(_ type: UInt8) -> [UInt8] { element(107, [0x10 | type]) }
    /// The two Apple elements an iPhone's Personal Hotspot beacon carries.
    static let appleHotspot: [UInt8] = element(221, [0x00, 0x17, 0xF2, 0x06, 0x01, 0x01, 0x03, 0x01, 0x00, 0x00])
        + element(221, [0x00, 0x17, 0xF2, 0x06, 0x02, 0x01, 0x06, 0xAA, 0xBB, 0xCC, 0xDD, 0xEE])
    static let rates: [UInt8] = element(1, [0x82, 0x84, 0x8B, 0x96])
    static let otherVendor: [UInt8] = element(221, [0x11, 0x22, 0x33, 0x01])

    /// One netlink attribute (little-endian header, payload padded to 4 bytes).
    static func attribute(_ type: UInt16, _ payload: [UInt8], nested: Bool = false) -> [UInt8] {
        let length = UInt16(4 + payload.count)
        let flaggedType = nested ? type | 0x8000 : type
        let padding = [UInt8](repeating: 0, count: (4 - payload.count % 4) % 4)
        return [UInt8(length & 0xFF), UInt8(length >> 8), UInt8(flaggedType & 0xFF), UInt8(flaggedType >> 8)] + payload + padding
    }
    static func u32(_ type: UInt16, _ value: UInt32) -> [UInt8] { attribute(type, (0..<4).map { UInt8((value >> (8 * $0)) & 0xFF) }) }
    static func s32(_ type: UInt16, _ value: Int32) -> [UInt8] { u32(type, UInt32(bitPattern: value)) }
    static func mac(_ text: String) -> [UInt8] { text.split(separator: ":").map { UInt8($0, radix: 16)! } }

    /// A `GET_SCAN` dump entry.
    static func scanEntry(bssid: String, frequency: UInt32 = 2412, signalMBm: Int32 = -3000, current: Bool, beacon: [UInt8]?, latest: [UInt8]?) -> [UInt8] {
        var bss = attribute(1, mac(bssid)) + u32(2, frequency) + s32(7, signalMBm)
        if current { bss += u32(9, 1) }
        if let latest { bss += attribute(6, latest) }
        if let beacon { bss += attribute(11, beacon) }
        return u32(3, 5) + attribute(47, bss, nested: true)
    }
}

@Suite struct InformationElementTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var bytes: [UInt8]
        var expected: BeaconSignals
        var testDescription: String { name }
    }

    static let ssid = Array("Phone".utf8)
    static let cases: [Case] = [
        Case(name: "plain access point", bytes: WifiBytes.ssid("Phone") + WifiBytes.rates, expected: BeaconSignals(ssid: ssid)),
        Case(name: "cost element first", bytes: WifiBytes.networkCost(level: 2) + WifiBytes.ssid("Phone"),
             expected: BeaconSignals(ssid: ssid, networkCost: NetworkCostElement(level: 2, flags: 0))),
        Case(name: "cost element between others", bytes: WifiBytes.ssid("Phone") + WifiBytes.networkCost(level: 4, flags: 0x05) + WifiBytes.otherVendor,
             expected: BeaconSignals(ssid: ssid, networkCost: NetworkCostElement(level: 4, flags: 0x05))),
        Case(name: "cost element last", bytes: WifiBytes.ssid("Phone") + WifiBytes.otherVendor + WifiBytes.networkCost(level: 1),
             expected: BeaconSignals(ssid: ssid, networkCost: NetworkCostElement(level: 1, flags: 0))),
        Case(name: "two cost elements: the first counts", bytes: WifiBytes.networkCost(level: 2) + WifiBytes.networkCost(level: 1),
             expected: BeaconSignals(networkCost: NetworkCostElement(level: 2, flags: 0))),
        Case(name: "Samsung's short form", bytes: [0xDD, 0x08, 0x00, 0x50, 0xF2, 0x11, 0x02, 0x00, 0x00, 0x00],
             expected: BeaconSignals(networkCost: NetworkCostElement(level: 2, flags: 0))),
        Case(name: "interworking chargeable public", bytes: WifiBytes.ssid("Phone") + WifiBytes.interworking(2),
             expected: BeaconSignals(ssid: ssid, accessNetworkType: 2)),
        Case(name: "interworking with HESSID", bytes: WifiBytes.element(107, [0x13, 0, 1, 2, 3, 4, 5]), expected: BeaconSignals(accessNetworkType: 3)),
        Case(name: "Apple hotspot elements", bytes: WifiBytes.appleHotspot, expected: BeaconSignals(hasAppleHotspotElement: true)),
        Case(name: "Apple element of another type", bytes: WifiBytes.element(221, [0x00, 0x17, 0xF2, 0x0A, 0x00]), expected: BeaconSignals()),
        Case(name: "truncated element ends the walk", bytes: WifiBytes.ssid("Phone") + [221, 30, 0x00, 0x50, 0xF2, 0x11, 0x02],
             expected: BeaconSignals(ssid: ssid)),
        Case(name: "short vendor element is ignored", bytes: WifiBytes.element(221, [0x00, 0x50, 0xF2, 0x11]) + WifiBytes.interworking(4),
             expected: BeaconSignals(accessNetworkType: 4)),
        Case(name: "empty interworking element", bytes: WifiBytes.element(107, []), expected: BeaconSignals()),
        Case(name: "SSID longer than 32 bytes is not an SSID", bytes: WifiBytes.element(0, [UInt8](repeating: 0x41, count: 33)), expected: BeaconSignals()),
        Case(name: "a lone byte", bytes: [0xDD], expected: BeaconSignals()),
        Case(name: "nothing", bytes: [], expected: BeaconSignals()),
    ]

    @Test(arguments: cases)
    func elementsParse(_ testCase: Case) {
        #expect(InformationElements.signals(testCase.bytes) == testCase.expected)
    }

    @Test func costFlagsReadAsWords() {
        let cost = NetworkCostElement(level: 4, flags: 0x0F)
        #expect(cost.isMetered)
        #expect(cost.flagNames == ["over-limit", "congested", "roaming", "approaching-limit"])
        #expect(!NetworkCostElement(level: 1, flags: 0).isMetered)
        #expect(!NetworkCostElement(level: 0, flags: 0).isMetered)
    }

    @Test func ssidTextEscapesWhatIsNotText() {
        #expect(WifiAssociation.ssidText(Array("Café".utf8)) == "Café")
        #expect(WifiAssociation.ssidText([0x41, 0x00, 0xFF, 0x5C]) == "A\\x00\\xff\\x5c")
        // Text around bad bytes stays text; an escape sequence (ESC, C1 CSI) and a right-to-left
        // override are shown as bytes, never sent to the terminal.
        #expect(WifiAssociation.ssidText(Array("Café".utf8) + [0xC3] + Array("x".utf8)) == "Café\\xc3x")
        #expect(WifiAssociation.ssidText([0x1B] + Array("[2J".utf8)) == "\\x1b[2J")
        #expect(WifiAssociation.ssidText([0xC2, 0x9B] + Array("31m".utf8)) == "\\xc2\\x9b31m")
        #expect(WifiAssociation.ssidText(Array("a\u{202E}b".utf8)) == "a\\xe2\\x80\\xaeb")
        #expect(WifiAssociation.ssidText(Array("🏠 Home 👨‍👩‍👧".utf8)) == "🏠 Home 👨‍👩‍👧")
    }
}

@Suite struct Nl80211ReplyTests {
    @Test func attributesStopAtAMalformedOne() {
        let good = WifiBytes.u32(3, 7)
        #expect(NetlinkAttributes(good).unsigned(3) == 7)
        // Length past the end: dropped, the earlier one kept.
        let overlong = good + [0xFF, 0x00, 0x04, 0x00, 1, 2]
        #expect(NetlinkAttributes(overlong).unsigned(3) == 7)
        #expect(NetlinkAttributes(overlong)[4] == nil)
        // Length below the header size.
        #expect(NetlinkAttributes([0x02, 0x00, 0x03, 0x00] + good).unsigned(3) == nil)
        // A missing last padding is tolerated.
        #expect(NetlinkAttributes([0x05, 0x00, 0x09, 0x00, 0x2A]).unsigned(9) == 0x2A)
        // Wrong sizes for numbers.
        #expect(NetlinkAttributes(WifiBytes.attribute(3, [1, 2, 3])).unsigned(3) == nil)
    }

    @Test func aScanEntryCarriesBothElementSets() throws {
        let beacon = WifiBytes.ssid("Cafe") + WifiBytes.interworking(2)
        let latest = WifiBytes.ssid("Cafe") + WifiBytes.networkCost(level: 4, flags: 0x04)
        let entry = try #require(Nl80211Replies.scanEntry(NetlinkAttributes(WifiBytes.scanEntry(
            bssid: "02:1a:11:00:00:01", frequency: 2437, signalMBm: -4200, current: true, beacon: beacon, latest: latest))))
        #expect(entry.bssid == "02:1a:11:00:00:01")
        #expect(entry.frequencyMHz == 2437)
        #expect(entry.signalDBm == -42)
        #expect(entry.isCurrent)
        #expect(entry.signals.accessNetworkType == 2)
        #expect(entry.signals.networkCost == NetworkCostElement(level: 4, flags: 0x04))
        // A probe-only BSS (no beacon elements) still has its signals.
        let probeOnly = try #require(Nl80211Replies.scanEntry(NetlinkAttributes(WifiBytes.scanEntry(
            bssid: "06:00:00:00:00:01", current: false, beacon: nil, latest: WifiBytes.appleHotspot))))
        #expect(probeOnly.signals.hasAppleHotspotElement)
        #expect(!probeOnly.isCurrent)
    }

    @Test func aScanEntryWithoutABSSIDIsNone() {
        #expect(Nl80211Replies.scanEntry(NetlinkAttributes(WifiBytes.u32(3, 5) + WifiBytes.attribute(47, WifiBytes.u32(2, 2412), nested: true))) == nil)
        #expect(Nl80211Replies.scanEntry(NetlinkAttributes(WifiBytes.attribute(47, WifiBytes.attribute(1, [1, 2, 3]), nested: true))) == nil)
    }

    @Test func stationSignalAndRates() throws {
        let txRate = WifiBytes.u32(5, 540)  // BITRATE32: 54.0 Mbit/s
        let rxRate = WifiBytes.attribute(1, [0x3C, 0x00])  // BITRATE (u16): 6.0 Mbit/s
        let info = WifiBytes.attribute(7, [0xE2]) + WifiBytes.attribute(13, [0xE0]) + WifiBytes.attribute(8, txRate, nested: true)
            + WifiBytes.attribute(14, rxRate, nested: true)
        let message = WifiBytes.u32(3, 5) + WifiBytes.attribute(6, WifiBytes.mac("02:00:00:00:01:00")) + WifiBytes.attribute(21, info, nested: true)
        let station = try #require(Nl80211Replies.station(NetlinkAttributes(message)))
        #expect(station.peer == "02:00:00:00:01:00")
        #expect(station.signalDBm == -32)  // the average wins over the last frame's -30
        #expect(station.transmitRateKbps == 54_000)
        #expect(station.receiveRateKbps == 6_000)
    }

    @Test func interfaceAndTheirSum() throws {
        let reply = WifiBytes.u32(3, 5) + WifiBytes.u32(5, 2) + WifiBytes.attribute(52, Array("Cafe".utf8)) + WifiBytes.u32(38, 2412)
        let interface = try #require(Nl80211Replies.interface(NetlinkAttributes(reply)))
        #expect(interface.index == 5)
        #expect(interface.mode == .station)
        let scan = [
            try #require(Nl80211Replies.scanEntry(NetlinkAttributes(WifiBytes.scanEntry(
                bssid: "02:00:00:00:01:00", current: true, beacon: WifiBytes.ssid("Cafe"), latest: nil)))),
            try #require(Nl80211Replies.scanEntry(NetlinkAttributes(WifiBytes.scanEntry(
                bssid: "02:00:00:00:02:00", current: false, beacon: WifiBytes.ssid("Cafe"), latest: nil)))),
            try #require(Nl80211Replies.scanEntry(NetlinkAttributes(WifiBytes.scanEntry(
                bssid: "02:00:00:00:03:00", current: false, beacon: WifiBytes.ssid("Other"), latest: nil)))),
        ]
        let facts = Nl80211Replies.facts(interface: interface, scan: scan, station: nil)
        let link = try #require(facts.association)
        #expect(link.ssid == "Cafe")
        #expect(link.bssid == "02:00:00:00:01:00")
        #expect(link.band == "2.4GHz")
        #expect(link.accessPointsWithSSID == 2)
        #expect(link.signalDBm == -30)
        // No current BSS: a station that is not associated.
        let alone = Nl80211Replies.facts(interface: interface, scan: Array(scan.dropFirst()), station: nil)
        #expect(alone.association == nil)
        #expect(alone.isDisconnectedStation)
        // An access point's interface has no association.
        var ap = interface
        ap.mode = .accessPoint
        #expect(Nl80211Replies.facts(interface: ap, scan: scan, station: nil) == WifiFacts(mode: .accessPoint))
    }
}

@Suite struct RoamGraceTests {
    private func publish(_ grace: inout RoamGrace, at now: Int64) -> Bool { grace.mayPublish(at: now) }

    @Test func aStationThatJoinsAgainIsNeverPublishedAsGone() {
        var grace = RoamGrace()
        grace.update(carrying: [5], endedForGood: [], at: 0)
        #expect(grace.deadline == nil)
        #expect(publish(&grace, at: 0))
        // Left on its own (a roam begins): waiting.
        grace.update(carrying: [], endedForGood: [], at: 1_000)
        #expect(grace.deadline == 1_000 + RoamGrace.grace)
        #expect(!publish(&grace, at: 2_000))
        // Associated again, carrier not back yet: still not carrying, still waiting.
        grace.update(carrying: [], endedForGood: [], at: 3_000)
        #expect(!publish(&grace, at: 3_000))
        // Carrying traffic: waiting ends at once.
        grace.update(carrying: [5], endedForGood: [], at: 4_000)
        #expect(grace.deadline == nil)
        #expect(publish(&grace, at: 4_000))
    }

    @Test func aStationThatStaysAwayIsPublishedAtTheDeadline() {
        var grace = RoamGrace()
        grace.update(carrying: [5, 6], endedForGood: [], at: 0)
        grace.update(carrying: [6], endedForGood: [], at: 10)
        grace.update(carrying: [], endedForGood: [], at: 100)  // a second one does not move the deadline
        #expect(grace.deadline == 10 + RoamGrace.grace)
        grace.update(carrying: [6], endedForGood: [], at: 200)
        #expect(grace.stations == [5])
        #expect(!publish(&grace, at: 10 + RoamGrace.grace - 1))
        #expect(publish(&grace, at: 10 + RoamGrace.grace))
        #expect(grace.stations.isEmpty)
    }

    /// A slow roam that keeps authenticating and associating is held past ``RoamGrace/grace``,
    /// each step giving it one more grace, but never past ``RoamGrace/longestHold``; progress of
    /// a station nobody waits for moves nothing.
    @Test func aRoamThatKeepsAdvancingIsHeldUntilItJoinsOrTheLongestHold() {
        let grace = RoamGrace.grace
        var hold = RoamGrace()
        hold.update(carrying: [5], endedForGood: [], at: 0)
        hold.update(carrying: [5], endedForGood: [], progressing: [5], at: 10)
        #expect(hold.deadline == nil)
        hold.update(carrying: [], endedForGood: [], at: 100)
        #expect(hold.deadline == 100 + grace)
        // Authenticated with the next access point 0.8 s later: one more grace from then.
        hold.update(carrying: [], endedForGood: [], progressing: [5], at: 100 + grace * 8 / 10)
        #expect(hold.deadline == 100 + grace * 18 / 10)
        #expect(!publish(&hold, at: 100 + grace + 1))
        // Another station's progress moves nothing.
        hold.update(carrying: [], endedForGood: [], progressing: [9], at: 100 + grace * 17 / 10)
        #expect(hold.deadline == 100 + grace * 18 / 10)
        // Steps keep coming: held up to the longest hold, not beyond.
        for step in 2...20 { hold.update(carrying: [], endedForGood: [], progressing: [5], at: 100 + Int64(step) * grace / 2) }
        #expect(hold.deadline == 100 + RoamGrace.longestHold)
        #expect(!publish(&hold, at: 100 + RoamGrace.longestHold - 1))
        #expect(publish(&hold, at: 100 + RoamGrace.longestHold))
        // Joined: a new wait starts afresh.
        hold.update(carrying: [5], endedForGood: [], at: 100 + RoamGrace.longestHold + 10)
        hold.update(carrying: [], endedForGood: [], at: 200 + RoamGrace.longestHold)
        #expect(hold.deadline == 200 + RoamGrace.longestHold + grace)
    }

    @Test func anAssociationEndedForGoodIsPublishedAtOnce() {
        var grace = RoamGrace()
        grace.update(carrying: [5], endedForGood: [], at: 0)
        grace.update(carrying: [], endedForGood: [5], at: 10)
        #expect(grace.deadline == nil)
        // The carrier went first; the access point's word comes in the next batch.
        grace.update(carrying: [5], endedForGood: [], at: 20)
        grace.update(carrying: [], endedForGood: [], at: 30)
        #expect(grace.deadline != nil)
        grace.update(carrying: [], endedForGood: [5], at: 40)
        #expect(grace.deadline == nil)
        #expect(publish(&grace, at: 41))
    }
}
