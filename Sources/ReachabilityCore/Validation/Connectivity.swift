/// Whether a network really reaches the Internet, as validation found it: NetworkManager's
/// `NONE/PORTAL/LIMITED/FULL`, Android's validated / partial / captive portal.
///
/// A struct over a string rather than an enum, so values can be added without breaking
/// adopters that switch over it. Without probing (the default) a routed path is ``unknown``:
/// only ``none`` and ``local`` are known without sending a byte.
public struct Connectivity: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
    /// The stable token of the JSON contract: `unknown`, `none`, `local`, `limited`, `portal`,
    /// `partial`, `full`.
    public let rawValue: String

    public init?(rawValue: String) {
        guard Self.all.contains(where: { $0.rawValue == rawValue }) else { return nil }
        self.rawValue = rawValue
    }

    private init(_ rawValue: String) { self.rawValue = rawValue }

    /// Not probing, or not probed yet: nothing was sent to find out.
    public static let unknown = Connectivity("unknown")
    /// No interface carries traffic.
    public static let none = Connectivity("none")
    /// Links and addresses, but no default route: only the local network is reachable.
    public static let local = Connectivity("local")
    /// A default route, but the probes fail: DNS failure, refused, timed out, nonsense answers.
    public static let limited = Connectivity("limited")
    /// A captive portal intercepts traffic: a redirect, HTTP 511, a page where the probe's
    /// answer belongs, or the RFC 8908 API says `captive`.
    public static let portal = Connectivity("portal")
    /// The HTTP probe passes but every HTTPS probe fails (HTTPS blocked or intercepted).
    public static let partial = Connectivity("partial")
    /// The probes pass: the Internet is reachable.
    public static let full = Connectivity("full")

    /// Every value, from least to most connected.
    public static let all: [Connectivity] = [.unknown, .none, .local, .limited, .portal, .partial, .full]

    public var description: String { rawValue }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        // A newer writer's value this version does not know reads as unknown, not an error.
        self = Connectivity(rawValue: text) ?? .unknown
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}
