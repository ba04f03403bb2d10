/// What kind of link an interface is, as far as the cost and nature of its traffic goes.
///
/// `wifi`, `cellular` and `wired` are physical transports. `tunnel` covers VPN and IP-in-IP
/// overlays, whose traffic really travels over an underlay; `virtual` covers software links
/// (veth, bridge, bond, VLAN, …) that carry no transport of their own.
public enum InterfaceType: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    case wifi
    case cellular
    case wired
    case loopback
    case tunnel
    case virtual
    case bluetooth
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
