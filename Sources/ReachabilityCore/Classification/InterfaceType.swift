/// What kind of link an interface is, as far as the cost and nature of its traffic goes.
///
/// `wifi`, `cellular` and `wired` are physical transports. `tunnel` covers VPN and IP-in-IP
/// overlays, whose traffic really travels over an underlay; `virtual` covers software links
/// (veth, bridge, bond, VLAN, …) that carry no transport of their own.
public enum InterfaceType: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    /// An 802.11 wireless link (`DEVTYPE=wlan`, a `phy80211` device).
    case wifi
    /// A mobile-data modem (WWAN, PPP, a USB LTE stick); expensive by default.
    case cellular
    /// Ethernet and other cabled links, including a USB-tethered phone (whose cost is its data plan).
    case wired
    /// The host's loopback interface (`lo`): never an egress.
    case loopback
    /// A VPN or IP-in-IP overlay (WireGuard, tun, GRE): its traffic really travels over an underlay.
    case tunnel
    /// A software link with no transport of its own (veth, bridge, bond, VLAN); a stacked device or
    /// an aggregate takes its lower devices' transport when they agree.
    case virtual
    /// A Bluetooth PAN link, normally a phone sharing its mobile data: expensive by default.
    case bluetooth
    /// No signal decided (the classifier's fallback).
    case other

    /// Whether traffic over this type is normally paid for by volume (the default of `expensive`).
    public var isExpensiveByDefault: Bool {
        switch self {
        case .cellular, .bluetooth: true
        default: false
        }
    }

    /// Physical transports: the types a tunnel or a stacked device can inherit.
    public var isPhysical: Bool {
        switch self {
        case .wifi, .cellular, .wired, .bluetooth: true
        default: false
        }
    }

    public var description: String { rawValue }
}
