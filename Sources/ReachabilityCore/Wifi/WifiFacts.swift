/// What nl80211 says about one Wi-Fi interface: its mode and, for a station, the network it is
/// associated with.
public struct WifiFacts: Sendable, Hashable {
    /// The interface's 802.11 mode (`station`, `ap`, `monitor`, …).
    public var mode: WifiMode
    /// The network a station is associated with; `nil` when it is not (or the mode has none).
    public var association: WifiAssociation?

    /// Facts given field by field.
    public init(mode: WifiMode, association: WifiAssociation? = nil) {
        self.mode = mode
        self.association = association
    }

    /// A station that is known not to be associated: it cannot carry traffic, whatever its
    /// carrier still says (the kernel drops the carrier up to a second after a disconnect).
    public var isDisconnectedStation: Bool { mode.isClient && association == nil }
}

/// An 802.11 interface mode (`enum nl80211_iftype`), by name. New modes read as their number.
public struct WifiMode: Sendable, Hashable, CustomStringConvertible {
    /// The mode's name: `station`, `ap`, `adhoc`, `monitor`, `mesh`, `p2p-client`, `p2p-go`, …
    public var name: String

    /// A mode by name.
    public init(_ name: String) { self.name = name }

    /// The mode with nl80211 number `number`.
    public init(nl80211 number: UInt64) {
        let names = ["unspecified", "adhoc", "station", "ap", "ap-vlan", "wds", "monitor", "mesh", "p2p-client", "p2p-go", "p2p-device", "ocb", "nan"]
        name = number < names.count ? names[Int(number)] : "type-\(number)"
    }

    /// A client of an access point (managed mode); a P2P client counts as one.
    public static let station = WifiMode("station")
    /// An access point.
    public static let accessPoint = WifiMode("ap")

    /// A mode that joins an access point's network (a station, or a Wi-Fi Direct client): the
    /// modes that have an association to report.
    public var isClient: Bool { self == .station || name == "p2p-client" }

    public var description: String { name }
}

/// The network a Wi-Fi station is associated with.
public struct WifiAssociation: Sendable, Hashable {
    /// The network's name, as text (bytes that are not UTF-8, and control characters, are
    /// written `\xNN`); `nil` when the kernel did not report it.
    public var ssid: String?
    /// The access point's address (`aa:bb:cc:dd:ee:ff`): it changes on a roam, the SSID does not.
    public var bssid: String
    /// The channel's centre frequency in MHz.
    public var frequencyMHz: Int?
    /// The received signal in dBm (the station's average when known, else the last frame's).
    public var signalDBm: Int?
    /// The transmit link rate in kbit/s, when known.
    public var transmitRateKbps: Int?
    /// The receive link rate in kbit/s, when known.
    public var receiveRateKbps: Int?
    /// The cost signals the network sends in its beacon and probe responses.
    public var beacon: BeaconSignals
    /// How many access points of this SSID the station's scan table holds (a phone's hotspot
    /// has one; a campus many): a locally administered BSSID only hints at a phone when alone.
    public var accessPointsWithSSID: Int

    /// An association given field by field.
    public init(
        ssid: String?, bssid: String, frequencyMHz: Int? = nil, signalDBm: Int? = nil, transmitRateKbps: Int? = nil,
        receiveRateKbps: Int? = nil, beacon: BeaconSignals = BeaconSignals(), accessPointsWithSSID: Int = 1
    ) {
        self.ssid = ssid
        self.bssid = bssid
        self.frequencyMHz = frequencyMHz
        self.signalDBm = signalDBm
        self.transmitRateKbps = transmitRateKbps
        self.receiveRateKbps = receiveRateKbps
        self.beacon = beacon
        self.accessPointsWithSSID = accessPointsWithSSID
    }

    /// The band of ``frequencyMHz``: `2.4GHz`, `5GHz`, `6GHz`, `60GHz`, or `nil`.
    public var band: String? { frequencyMHz.flatMap(Self.band(ofMHz:)) }

    /// The band a centre frequency lies in.
    public static func band(ofMHz frequency: Int) -> String? {
        switch frequency {
        case 2400...2500: "2.4GHz"
        case 4900...5899: "5GHz"
        case 5925...7125: "6GHz"
        case 57000...71000: "60GHz"
        default: nil
        }
    }

    /// The BSSID is locally administered (bit 1 of its first octet): phones' hotspots and
    /// randomised addresses use such addresses, manufactured access points do not.
    public var hasLocallyAdministeredBSSID: Bool {
        guard let first = bssid.split(separator: ":").first, let octet = UInt8(first, radix: 16) else { return false }
        return octet & 0x02 != 0
    }

    /// SSID bytes as text: UTF-8 where valid, with `\xNN` escapes for the bytes that are not,
    /// and for those of characters a terminal would act on rather than show (control
    /// characters, C1 included, and bidirectional overrides, which reorder what follows) and of
    /// `\` itself. A network's name is chosen by whoever runs the access point.
    public static func ssidText(_ bytes: [UInt8]) -> String {
        var out = ""
        func escape<Bytes: Sequence<UInt8>>(_ raw: Bytes) {
            for byte in raw {
                let hex = String(byte, radix: 16)
                out += "\\x" + (hex.count == 1 ? "0" : "") + hex
            }
        }
        var rest = bytes[...]
        while let first = rest.first {
            let length = first < 0x80 ? 1 : first >= 0xF0 ? 4 : first >= 0xE0 ? 3 : first >= 0xC0 ? 2 : 1
            let candidate = rest.prefix(length)
            if candidate.count == length, let text = String(validating: candidate, as: UTF8.self),
               let scalar = text.unicodeScalars.first, text.unicodeScalars.count == 1, !isUnsafe(scalar) {
                out.unicodeScalars.append(scalar)
                rest = rest.dropFirst(length)
            } else {
                // Not UTF-8 here (or a character to keep off the terminal): escape it, and for an
                // invalid sequence only its first byte, so what follows is read afresh.
                let count = candidate.count == length && String(validating: candidate, as: UTF8.self) != nil ? length : 1
                escape(rest.prefix(count))
                rest = rest.dropFirst(count)
            }
        }
        return out
    }

    /// `\`, the C0 and C1 controls with DEL (Unicode's `Cc`, a fixed set: ranges rather than
    /// the property tables, which a watcher would otherwise page in), and the bidirectional
    /// embeddings, overrides and isolates.
    private static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
        let value = scalar.value
        return scalar == "\\" || value < 0x20 || (0x7F...0x9F).contains(value) || (0x202A...0x202E).contains(value)
            || (0x2066...0x2069).contains(value)
    }

    /// Six bytes as `aa:bb:cc:dd:ee:ff`; nil for any other length.
    public static func macText<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> String? {
        guard bytes.count == 6 else { return nil }
        return bytes.map { byte in
            let hex = String(byte, radix: 16)
            return hex.count == 1 ? "0" + hex : hex
        }.joined(separator: ":")
    }
}
