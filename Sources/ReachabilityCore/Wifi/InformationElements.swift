/// What a Wi-Fi network says about its cost in its beacon or probe response, read from the
/// 802.11 information elements before any address is configured.
///
/// Parsed from both of nl80211's element sets: the beacon's (`NL80211_BSS_BEACON_IES`) and the
/// latest frame's (`NL80211_BSS_INFORMATION_ELEMENTS`, a probe response when one came last): a
/// hidden or probe-only network may lack the first, an AP may put an element in only one.
public struct BeaconSignals: Sendable, Hashable {
    /// The network's name as the SSID element carries it (up to 32 bytes, not necessarily text).
    public var ssid: [UInt8]?
    /// Microsoft's Network Cost element (`DD 08 00 50 F2 11 …`), when present.
    public var networkCost: NetworkCostElement?
    /// The 802.11u Interworking element's access network type (0 private … 5 emergency, 14
    /// test, 15 wildcard), when present.
    public var accessNetworkType: UInt8?
    /// Apple's hotspot vendor element (OUI `00:17:F2`, type 6): an iPhone's Personal Hotspot,
    /// or a phone imitating one.
    public var hasAppleHotspotElement: Bool

    /// Signals given field by field (``InformationElements/signals(_:)`` reads them).
    public init(ssid: [UInt8]? = nil, networkCost: NetworkCostElement? = nil, accessNetworkType: UInt8? = nil, hasAppleHotspotElement: Bool = false) {
        self.ssid = ssid
        self.networkCost = networkCost
        self.accessNetworkType = accessNetworkType
        self.hasAppleHotspotElement = hasAppleHotspotElement
    }

    /// These signals completed by `other`'s: the first set's value wins where both have one.
    public func merged(with other: BeaconSignals) -> BeaconSignals {
        BeaconSignals(
            ssid: ssid ?? other.ssid, networkCost: networkCost ?? other.networkCost,
            accessNetworkType: accessNetworkType ?? other.accessNetworkType,
            hasAppleHotspotElement: hasAppleHotspotElement || other.hasAppleHotspotElement)
    }

    /// The access network type in words (IEEE 802.11u), for evidence.
    public static func accessNetworkTypeName(_ type: UInt8) -> String {
        switch type {
        case 0: "private network"
        case 1: "private network with guest access"
        case 2: "chargeable public network"
        case 3: "free public network"
        case 4: "personal device network"
        case 5: "emergency services only"
        case 14: "test or experimental"
        case 15: "wildcard"
        default: "reserved type \(type)"
        }
    }
}

/// Microsoft's Network Cost information element: how the network bills and where the plan stands.
public struct NetworkCostElement: Sendable, Hashable {
    /// The cost level: 0 unknown, 1 unrestricted, 2 fixed (a cap), 4 variable (per byte).
    public var level: UInt8
    /// Bit flags: 0x01 over the data limit, 0x02 congested, 0x04 roaming, 0x08 approaching the limit.
    public var flags: UInt8

    /// An element given by its two fields.
    public init(level: UInt8, flags: UInt8) {
        self.level = level
        self.flags = flags
    }

    /// A fixed or variable cost: traffic is paid for by volume.
    public var isMetered: Bool { level & 0x06 != 0 }
    /// The plan's limit is exceeded.
    public var isOverLimit: Bool { flags & 0x01 != 0 }
    /// The network says it is congested.
    public var isCongested: Bool { flags & 0x02 != 0 }
    /// The mobile link behind the hotspot is roaming.
    public var isRoaming: Bool { flags & 0x04 != 0 }
    /// The plan's limit is close.
    public var isApproachingLimit: Bool { flags & 0x08 != 0 }

    /// The level in words: `unrestricted`, `fixed`, `variable`, `unknown`, or the number.
    public var levelName: String {
        switch level {
        case 0: "unknown"
        case 1: "unrestricted"
        case 2: "fixed"
        case 4: "variable"
        default: "level \(level)"
        }
    }

    /// The flags set, in words (`over-limit`, `congested`, `roaming`, `approaching-limit`).
    public var flagNames: [String] {
        [(isOverLimit, "over-limit"), (isCongested, "congested"), (isRoaming, "roaming"), (isApproachingLimit, "approaching-limit")]
            .filter(\.0).map(\.1)
    }
}

/// The 802.11 information-element walker: `id, length, payload` triples, each length checked
/// against what is left; a truncated element ends the walk.
public enum InformationElements {
    static let ssidID: UInt8 = 0
    static let interworkingID: UInt8 = 107
    static let vendorSpecificID: UInt8 = 221
    static let microsoftOUI: [UInt8] = [0x00, 0x50, 0xF2]
    static let microsoftNetworkCostType: UInt8 = 0x11
    static let appleOUI: [UInt8] = [0x00, 0x17, 0xF2]
    static let appleHotspotType: UInt8 = 0x06

    /// The cost signals in one set of elements. The first element of each kind counts (a
    /// network with two cost elements is not trusted to have meant the last).
    public static func signals<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> BeaconSignals where Bytes.Index == Int {
        var signals = BeaconSignals()
        var offset = bytes.startIndex
        while bytes.endIndex - offset >= 2 {
            let id = bytes[offset]
            let length = Int(bytes[offset + 1])
            let start = offset + 2
            guard length <= bytes.endIndex - start else { break }
            let body = bytes[start..<(start + length)]
            switch id {
            case ssidID where signals.ssid == nil && length <= 32:
                signals.ssid = Array(body)
            case interworkingID where signals.accessNetworkType == nil && length >= 1:
                signals.accessNetworkType = body.first! & 0x0F
            case vendorSpecificID where length >= 4:
                let oui = Array(body.prefix(3))
                let type = body[start + 3]
                if oui == microsoftOUI, type == microsoftNetworkCostType, signals.networkCost == nil, length >= 7 {
                    // DD 08 00 50 F2 11 <level> 00 <flags> 00: level and flags each in the low
                    // byte of a 16-bit field.
                    signals.networkCost = NetworkCostElement(level: body[start + 4], flags: body[start + 6])
                } else if oui == appleOUI, type == appleHotspotType {
                    signals.hasAppleHotspotElement = true
                }
            default:
                break
            }
            offset = start + length
        }
        return signals
    }
}
