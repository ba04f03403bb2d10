/// What a Wi-Fi network's own signals say about its cost, before DHCP: each signal becomes
/// ``Evidence``, and the strongest one that says "metered" decides.
///
/// Order, strongest first (after the user's rules, which the ``Classifier`` applies on top):
/// Microsoft's Network Cost element (the network states its cost); the 802.11u access network
/// type 2 (chargeable public: Android's tethering sets it) or 4 (personal device); Apple's
/// hotspot element on a locally administered BSSID (an iPhone's Personal Hotspot); Android's
/// old hotspot BSSID prefix `02:1a:11` when it is the only access point of its SSID (ChromeOS
/// shill's rule: campuses may use locally administered BSSIDs too). DHCP's `ANDROID_METERED`
/// confirms later. A signal that says "free" is shown but never makes a network free that
/// another signal calls metered: a wrong "free" spends the user's money, a wrong "metered"
/// only waits.
public enum WifiCost {
    /// The judgement on one association: its evidence, in order, and whether any signal says metered.
    public struct Judgement: Sendable, Hashable {
        /// Every Wi-Fi signal seen, context first; notes say what each means for the cost.
        public var evidence: [Evidence]
        /// Index in ``evidence`` of the strongest signal that says metered, if any.
        public var deciding: Int?
        /// A signal says the network is metered.
        public var isMetered: Bool { deciding != nil }
    }

    /// Android's SoftAP BSSID prefix: Google's OUI `00:1a:11` with the locally administered bit.
    static let androidHotspotPrefix = "02:1a:11:"

    /// Judges `association`'s own signals.
    public static func judge(_ association: WifiAssociation) -> Judgement {
        var evidence: [Evidence] = []
        var deciding: Int?
        func add(_ item: Evidence, metered: Bool) {
            evidence.append(item)
            if metered && deciding == nil { deciding = evidence.count - 1 }
        }
        evidence.append(Evidence(signal: "wifi", value: describe(association), note: "associated"))
        let beacon = association.beacon
        if let cost = beacon.networkCost {
            var value = "ms-cost \(cost.levelName)"
            if !cost.flagNames.isEmpty { value += " " + cost.flagNames.joined(separator: ",") }
            let meaning = cost.isMetered ? "Microsoft Network Cost element: expensive" : "Microsoft Network Cost element: no charge stated"
            add(Evidence(signal: "beacon", value: value, note: meaning), metered: cost.isMetered)
        }
        if let type = beacon.accessNetworkType {
            let metered = type == 2 || type == 4
            let name = BeaconSignals.accessNetworkTypeName(type)
            add(Evidence(signal: "beacon", value: "interworking \(type)", note: metered ? "\(name): expensive" : name), metered: metered)
        }
        if beacon.hasAppleHotspotElement {
            let laa = association.hasLocallyAdministeredBSSID
            let note = laa ? "Apple hotspot element, locally administered BSSID: an iPhone's Personal Hotspot, expensive"
                : "Apple hotspot element, but a manufacturer's BSSID: not a phone"
            add(Evidence(signal: "beacon", value: "apple-hotspot", note: note), metered: laa)
        }
        if association.bssid.hasPrefix(androidHotspotPrefix) {
            let alone = association.accessPointsWithSSID == 1
            let note = alone ? "Android hotspot BSSID prefix, the only access point of its SSID: expensive"
                : "Android hotspot BSSID prefix, but \(association.accessPointsWithSSID) access points share the SSID: not a phone"
            add(Evidence(signal: "bssid", value: association.bssid, note: note), metered: alone)
        }
        if let deciding { evidence[deciding].note = (evidence[deciding].note ?? "") + "; decides the cost" }
        return Judgement(evidence: evidence, deciding: deciding)
    }

    /// `"Cafe" 02:1a:11:00:00:01 2437 MHz -52 dBm`: the association in one line.
    static func describe(_ association: WifiAssociation) -> String {
        var parts: [String] = []
        if let ssid = association.ssid { parts.append("\"\(ssid)\"") }
        parts.append(association.bssid)
        if let frequency = association.frequencyMHz { parts.append("\(frequency) MHz") }
        if let signal = association.signalDBm { parts.append("\(signal) dBm") }
        return parts.joined(separator: " ")
    }
}
