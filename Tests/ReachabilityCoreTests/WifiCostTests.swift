import Foundation
import ReachabilityCore
import Testing

/// Hotspots as the anchors' research found them in the field, and whether each must read as metered.
@Suite struct WifiCostTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var bssid: String
        var beacon: BeaconSignals
        var accessPoints: Int = 1
        var metered: Bool
        /// A fragment of the deciding evidence's text, when metered.
        var decidedBy: String?
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "home access point", bssid: "a4:2b:b0:00:00:01", beacon: BeaconSignals(), metered: false),
        Case(name: "Windows hotspot, fixed cost", bssid: "a4:2b:b0:00:00:01", beacon: BeaconSignals(networkCost: NetworkCostElement(level: 2, flags: 0)),
             metered: true, decidedBy: "ms-cost fixed"),
        Case(name: "variable cost, roaming and near the limit", bssid: "a4:2b:b0:00:00:01",
             beacon: BeaconSignals(networkCost: NetworkCostElement(level: 4, flags: 0x0C)), metered: true, decidedBy: "ms-cost variable roaming,approaching-limit"),
        Case(name: "unrestricted cost", bssid: "a4:2b:b0:00:00:01", beacon: BeaconSignals(networkCost: NetworkCostElement(level: 1, flags: 0)), metered: false),
        Case(name: "unrestricted cost yet chargeable public: metered wins", bssid: "a4:2b:b0:00:00:01",
             beacon: BeaconSignals(networkCost: NetworkCostElement(level: 1, flags: 0), accessNetworkType: 2), metered: true, decidedBy: "interworking 2"),
        Case(name: "Android tethering (chargeable public)", bssid: "a4:2b:b0:00:00:01", beacon: BeaconSignals(accessNetworkType: 2),
             metered: true, decidedBy: "interworking 2"),
        Case(name: "personal device network", bssid: "a4:2b:b0:00:00:01", beacon: BeaconSignals(accessNetworkType: 4), metered: true, decidedBy: "interworking 4"),
        Case(name: "free public network", bssid: "a4:2b:b0:00:00:01", beacon: BeaconSignals(accessNetworkType: 3), metered: false),
        Case(name: "private network", bssid: "a4:2b:b0:00:00:01", beacon: BeaconSignals(accessNetworkType: 0), metered: false),
        Case(name: "iPhone hotspot", bssid: "06:11:22:33:44:55", beacon: BeaconSignals(hasAppleHotspotElement: true), metered: true, decidedBy: "apple-hotspot"),
        Case(name: "Apple element on a manufactured BSSID (an AirPort)", bssid: "00:17:f2:33:44:55",
             beacon: BeaconSignals(hasAppleHotspotElement: true), metered: false),
        Case(name: "old Android SoftAP prefix, alone", bssid: "02:1a:11:f0:00:01", beacon: BeaconSignals(), metered: true, decidedBy: "02:1a:11:f0:00:01"),
        Case(name: "Android prefix on a campus of three", bssid: "02:1a:11:f0:00:01", beacon: BeaconSignals(), accessPoints: 3, metered: false),
        Case(name: "cost element decides before interworking", bssid: "02:1a:11:f0:00:01",
             beacon: BeaconSignals(networkCost: NetworkCostElement(level: 2, flags: 0), accessNetworkType: 2, hasAppleHotspotElement: true),
             metered: true, decidedBy: "ms-cost fixed"),
    ]

    @Test(arguments: cases)
    func judge(_ testCase: Case) throws {
        let association = WifiAssociation(ssid: "Net", bssid: testCase.bssid, frequencyMHz: 2412, beacon: testCase.beacon, accessPointsWithSSID: testCase.accessPoints)
        let judgement = WifiCost.judge(association)
        #expect(judgement.isMetered == testCase.metered)
        #expect(judgement.evidence.first?.signal == "wifi")
        let decided = judgement.evidence.filter { $0.note?.hasSuffix("decides the cost") == true }
        #expect(decided.count == (testCase.metered ? 1 : 0), "\(judgement.evidence)")
        if let fragment = testCase.decidedBy {
            let text = try #require(decided.first).description
            #expect(text.contains(fragment), "\(text)")
        }
    }
}

@Suite struct WifiClassificationTests {
    static func station(ssid: String = "Cafe", bssid: String = "a4:2b:b0:00:00:01", beacon: BeaconSignals = BeaconSignals(), leaseMetered: Bool = false) -> InterfaceFacts {
        var facts = Link.wifi()
        facts.wifi = WifiFacts(mode: .station, association: WifiAssociation(ssid: ssid, bssid: bssid, frequencyMHz: 5180, signalDBm: -50, beacon: beacon))
        if leaseMetered { facts.dhcpHints = DHCPHints(androidMetered: true, leaseFile: "/run/lease") }
        return facts
    }

    @Test func aPhoneHotspotIsExpensiveBeforeDHCP() {
        let classification = Classifier().classify(Self.station(beacon: BeaconSignals(accessNetworkType: 2)))
        #expect(classification.type == .wifi)
        #expect(classification.isExpensive)
        #expect(classification.evidence.contains { $0.description.contains("interworking 2 (chargeable public network: expensive; decides the cost)") })
    }

    @Test func dhcpConfirmsLater() {
        let classification = Classifier().classify(Self.station(beacon: BeaconSignals(accessNetworkType: 2), leaseMetered: true))
        #expect(classification.isExpensive)
        #expect(classification.evidence.map(\.signal).suffix(2) == ["beacon", "dhcp"])
    }

    @Test func anSSIDRuleBeatsTheHeuristics() throws {
        let rule = try OverrideRule(parsing: "ssid:Cafe*=unmetered", origin: "reach.conf:3")
        let classification = Classifier(overrides: [rule]).classify(Self.station(bssid: "06:00:00:00:00:01", beacon: BeaconSignals(hasAppleHotspotElement: true)))
        #expect(!classification.isExpensive)
        #expect(classification.expensiveIsOverridden)
        #expect(classification.evidence.last?.description == "override=ssid:Cafe*=inexpensive (reach.conf:3) (inexpensive; decides the cost over the signals above)")
        // And the other way: a home network the user pays for by volume.
        let metered = try OverrideRule(parsing: "ssid:Home=metered")
        #expect(Classifier(overrides: [metered]).classify(Self.station(ssid: "Home")).isExpensive)
        #expect(!Classifier(overrides: [metered]).classify(Self.station(ssid: "Homework")).isExpensive)
    }

    @Test func ssidSelectorNeedsAnAssociation() throws {
        let rule = try OverrideRule(parsing: "ssid:*=expensive")
        #expect(!rule.matches(Link.wifi()))
        #expect(rule.matches(Self.station()))
        #expect(rule.description == "ssid:*=expensive")
        #expect(throws: OverrideRuleError.self) { try OverrideRule(parsing: "ssid:=expensive") }
    }
}

@Suite struct WifiPathTests {
    static func snapshot(_ wifi: InterfaceFacts) -> NetworkSnapshot {
        NetworkSnapshot(interfaces: [Link.loopback, wifi], addresses: [v4(2)], defaultRoutes: [route4(2)])
    }

    @Test func theSSIDIsInTheIdentityAndTheBSSIDIsNot() {
        let first = PathEvaluator().evaluate(Self.snapshot(WifiClassificationTests.station(ssid: "Cafe", bssid: "a4:2b:b0:00:00:01")))
        let roamed = PathEvaluator().evaluate(Self.snapshot(WifiClassificationTests.station(ssid: "Cafe", bssid: "a4:2b:b0:00:00:02")))
        let moved = PathEvaluator().evaluate(Self.snapshot(WifiClassificationTests.station(ssid: "Airport")))
        #expect(first.status == .wifi)
        #expect(first.identity.ssid == "Cafe")
        #expect(first != roamed)  // the interface's BSSID differs …
        #expect(first.summary == roamed.summary)  // … but it is the same network
        #expect(first.summary != moved.summary)
        #expect(first.summary.isSameConnection(as: moved.summary))
    }

    @Test func aDisassociatedStationCarriesNothing() {
        var facts = Link.wifi()
        facts.wifi = WifiFacts(mode: .station)
        let path = PathEvaluator().evaluate(Self.snapshot(facts))
        #expect(path.status == .unreachable)
        #expect(path.interface(named: "wlan0")?.isRunning == false)
        // Without nl80211 facts (no cfg80211 in a test namespace), the flags decide as before.
        #expect(PathEvaluator().evaluate(Self.snapshot(Link.wifi())).status == .wifi)
    }

    @Test func wifiFactsRoundTripThroughJSON() throws {
        let facts = WifiClassificationTests.station(beacon: BeaconSignals(networkCost: NetworkCostElement(level: 4, flags: 0x05), accessNetworkType: 2))
        var withRates = facts
        withRates.wifi?.association?.transmitRateKbps = 54_000
        let path = PathEvaluator().evaluate(Self.snapshot(withRates))
        let text = PathJSON.text(path)
        #expect(text.contains("\"ssid\":\"Cafe\""))
        #expect(text.contains("\"networkCost\":{\"flags\":[\"over-limit\",\"roaming\"],\"level\":\"variable\"}"))
        let decoded = try JSONDecoder().decode(NetworkPath.self, from: Data(text.utf8))
        #expect(decoded.identity.ssid == "Cafe")
        #expect(decoded.interface(named: "wlan0")?.wifi == path.interface(named: "wlan0")?.wifi)
        #expect(decoded.interface(named: "lo")?.wifi == nil)
    }
}
