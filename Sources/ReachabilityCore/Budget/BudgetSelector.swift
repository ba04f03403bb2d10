/// Which interfaces a data budget counts: `cellular`, `wifi`, `wired`, `expensive`,
/// `iface:GLOB` (by name) or `ssid:GLOB` (Wi-Fi stations associated with a matching network).
/// Matched against the classified interface (overrides applied) each time counters are read,
/// so traffic counts against a budget while its interface matches.
public struct BudgetSelector: Sendable, Hashable, CustomStringConvertible {
    enum Kind: Sendable, Hashable {
        case cellular, wifi, wired, expensive
        case interface(Glob)
        case ssid(Glob)
    }

    let kind: Kind

    /// The longest glob accepted (an interface name is at most 15 bytes, an SSID 32).
    public static let maxGlobLength = 64

    /// Parses a selector; the error names what is accepted.
    public init(parsing text: String) throws(BudgetError) {
        switch text {
        case "cellular": kind = .cellular
        case "wifi": kind = .wifi
        case "wired": kind = .wired
        case "expensive": kind = .expensive
        default:
            let parts = text.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2, parts[0] == "iface" || parts[0] == "ssid" else {
                throw BudgetError(
                    field: "for", reason: "'\(text.prefix(80))' is not cellular, wifi, wired, expensive, iface:GLOB or ssid:GLOB")
            }
            let pattern = String(parts[1])
            // Counted in Unicode scalars, as JSON Schema's maxLength counts.
            guard !pattern.isEmpty, pattern.unicodeScalars.count <= Self.maxGlobLength,
                pattern.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value != 0x7F }), let glob = Glob(pattern)
            else {
                throw BudgetError(
                    field: "for", reason: "'\(pattern.prefix(80))' is not a glob of 1-\(Self.maxGlobLength) printable characters with closed brackets")
            }
            kind = parts[0] == "iface" ? .interface(glob) : .ssid(glob)
        }
    }

    /// Whether `interface`'s traffic counts against the budget now.
    public func matches(_ interface: Interface) -> Bool {
        switch kind {
        case .cellular: interface.type == .cellular
        case .wifi: interface.type == .wifi
        case .wired: interface.type == .wired
        case .expensive: interface.isExpensive
        case .interface(let glob): glob.matches(interface.name)
        case .ssid(let glob): interface.wifi?.association?.ssid.map(glob.matches) ?? false
        }
    }

    public var description: String {
        switch kind {
        case .cellular: "cellular"
        case .wifi: "wifi"
        case .wired: "wired"
        case .expensive: "expensive"
        case .interface(let glob): "iface:\(glob.pattern)"
        case .ssid(let glob): "ssid:\(glob.pattern)"
        }
    }
}
