/// The JSON of an interface's Wi-Fi facts (the `wifi` key of an interface), keys sorted:
/// `{"accessPoints","associated","band","beacon","bssid","frequencyMHz","mode","receiveRateKbps",
/// "signalDBm","ssid","transmitRateKbps"}`, the association's keys `null` when not associated;
/// `beacon` is `{"accessNetworkType","appleHotspot","networkCost"}`, `networkCost`
/// `{"flags":[…],"level":"variable"}` or `null`.
extension PathJSON {
    static func text(_ wifi: WifiFacts) -> String {
        let link = wifi.association
        func number(_ value: Int?) -> String { value.map(String.init) ?? "null" }
        var out = "{\"accessPoints\":\(number(link?.accessPointsWithSSID)),\"associated\":\(link != nil),"
        out += "\"band\":\(optional(link?.band)),\"beacon\":\(link.map { text($0.beacon) } ?? "null"),"
        out += "\"bssid\":\(optional(link?.bssid)),\"frequencyMHz\":\(number(link?.frequencyMHz)),\"mode\":\(string(wifi.mode.name)),"
        out += "\"receiveRateKbps\":\(number(link?.receiveRateKbps)),\"signalDBm\":\(number(link?.signalDBm)),"
        out += "\"ssid\":\(optional(link?.ssid)),\"transmitRateKbps\":\(number(link?.transmitRateKbps))}"
        return out
    }

    static func text(_ beacon: BeaconSignals) -> String {
        let cost = beacon.networkCost.map { "{\"flags\":\(strings($0.flagNames)),\"level\":\(string($0.levelName))}" } ?? "null"
        return "{\"accessNetworkType\":\(beacon.accessNetworkType.map { String($0) } ?? "null"),"
            + "\"appleHotspot\":\(beacon.hasAppleHotspotElement),\"networkCost\":\(cost)}"
    }
}

extension WifiFacts: Decodable {
    enum CodingKeys: String, CodingKey {
        case mode, associated, ssid, bssid, frequencyMHz, signalDBm, transmitRateKbps, receiveRateKbps, accessPoints, beacon
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        mode = WifiMode(try container.decode(String.self, forKey: .mode))
        guard try container.decode(Bool.self, forKey: .associated) else {
            association = nil
            return
        }
        association = WifiAssociation(
            ssid: try container.decodeIfPresent(String.self, forKey: .ssid), bssid: try container.decode(String.self, forKey: .bssid),
            frequencyMHz: try container.decodeIfPresent(Int.self, forKey: .frequencyMHz),
            signalDBm: try container.decodeIfPresent(Int.self, forKey: .signalDBm),
            transmitRateKbps: try container.decodeIfPresent(Int.self, forKey: .transmitRateKbps),
            receiveRateKbps: try container.decodeIfPresent(Int.self, forKey: .receiveRateKbps),
            beacon: try container.decodeIfPresent(BeaconSignals.self, forKey: .beacon) ?? BeaconSignals(),
            accessPointsWithSSID: try container.decodeIfPresent(Int.self, forKey: .accessPoints) ?? 1)
    }
}

extension BeaconSignals: Decodable {
    enum CodingKeys: String, CodingKey { case accessNetworkType, appleHotspot, networkCost }
    enum CostKeys: String, CodingKey { case level, flags }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            accessNetworkType: try container.decodeIfPresent(UInt8.self, forKey: .accessNetworkType),
            hasAppleHotspotElement: try container.decodeIfPresent(Bool.self, forKey: .appleHotspot) ?? false)
        if container.contains(.networkCost), try !container.decodeNil(forKey: .networkCost) {
            let cost = try container.nestedContainer(keyedBy: CostKeys.self, forKey: .networkCost)
            let levels: [String: UInt8] = ["unknown": 0, "unrestricted": 1, "fixed": 2, "variable": 4]
            let levelName = try cost.decode(String.self, forKey: .level)
            let level = levels[levelName] ?? levelName.split(separator: " ").last.flatMap { UInt8($0) } ?? 0
            let bits: [String: UInt8] = ["over-limit": 0x01, "congested": 0x02, "roaming": 0x04, "approaching-limit": 0x08]
            let flags = try cost.decode([String].self, forKey: .flags).reduce(UInt8(0)) { $0 | (bits[$1] ?? 0) }
            networkCost = NetworkCostElement(level: level, flags: flags)
        }
    }
}
