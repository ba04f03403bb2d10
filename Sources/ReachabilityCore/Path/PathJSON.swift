/// The one writer of the JSON contract (paths, interfaces, destination routes): text with sorted
/// keys and `null` for a missing optional, written directly rather than through `JSONEncoder`.
/// `reach watch --json` writes a line per change, so this sits on the latency path (measured:
/// Codable was half the CPU of a route change). The types are `Decodable` for consumers.
public enum PathJSON {
    /// A path as one line of JSON (what `reach status --json` prints, and `reach watch --json` per
    /// change); `time`, when given, is added as a `time` key.
    public static func text(_ path: NetworkPath, time: String? = nil) -> String {
        var out = "{"
        if let time { out += "\"time\":\(string(time))," }
        out += "\"budgets\":["
        for (offset, budget) in path.budgets.enumerated() {
            if offset > 0 { out += "," }
            out += "{\"cycleEnd\":\(optional(budget.cycleEnd)),\"limitBytes\":\(budget.limitBytes),"
            out += "\"name\":\(string(budget.name)),\"state\":\(string(budget.state.rawValue))}"
        }
        out += "],"
        out += "\"connectivity\":\(string(path.connectivity.rawValue)),"
        out += "\"expensive\":\(path.isExpensive),\"identity\":\(text(path.identity)),\"interfaces\":["
        for (offset, interface) in path.interfaces.enumerated() {
            if offset > 0 { out += "," }
            out += text(interface)
        }
        out += "],\"ipv4\":\(path.ipv4),\"ipv6\":\(path.ipv6),\"portalURL\":\(optional(path.portalURL)),"
        out += "\"primary\":\(reference(path.primary)),"
        out += "\"status\":\(string(path.status.rawValue)),\"underlay\":\(reference(path.underlay))}"
        return out
    }

    /// An interface; `withAddresses: false` leaves the key out (sysfs-only listings, which
    /// cannot know addresses).
    public static func text(_ interface: Interface, withAddresses: Bool = true) -> String {
        var out = "{"
        if withAddresses { out += "\"addresses\":\(strings(interface.addresses))," }
        out += "\"evidence\":["
        for (offset, evidence) in interface.evidence.enumerated() {
            if offset > 0 { out += "," }
            out += string(evidence.description)
        }
        return out + "],\"expensive\":\(interface.isExpensive),\"index\":\(interface.index),\"name\":\(string(interface.name)),"
            + "\"running\":\(interface.isRunning),\"type\":\(string(interface.type.rawValue)),\"up\":\(interface.isUp),"
            + "\"validation\":\(interface.validation.map(text) ?? "null"),\"wifi\":\(interface.wifi.map(text) ?? "null")}"
    }

    /// What probing found on an interface: `{"connectivity","portalURL","probes"}`.
    static func text(_ validation: InterfaceValidation) -> String {
        "{\"connectivity\":\(string(validation.connectivity.rawValue)),\"portalURL\":\(optional(validation.portalURL)),"
            + "\"probes\":[" + validation.probes.map(text).joined(separator: ",") + "]}"
    }

    /// One probe's record, keys sorted.
    static func text(_ probe: ProbeRecord) -> String {
        "{\"address\":\(optional(probe.address)),\"detail\":\(string(probe.detail)),\"interface\":\(string(probe.interface)),"
            + "\"kind\":\(string(probe.kind.rawValue)),\"milliseconds\":\(probe.milliseconds),\"outcome\":\(string(probe.outcome.rawValue)),"
            + "\"portalURL\":\(optional(probe.portalURL)),\"startedAt\":\(probe.startedAt),\"url\":\(string(probe.url))}"
    }

    static func optional(_ value: String?) -> String { value.map(string) ?? "null" }

    /// A JSON array of interfaces (`reach interfaces --json`), each written as on its own.
    public static func text(_ interfaces: [Interface], withAddresses: Bool = true) -> String {
        "[" + interfaces.map { text($0, withAddresses: withAddresses) }.joined(separator: ",") + "]"
    }

    /// One destination route (`reach status --to HOST --json` writes an array of them).
    public static func text(_ route: DestinationRoute) -> String {
        "{\"destination\":\(string(route.destination)),\"expensive\":\(route.isExpensive),\"family\":\(string(route.family.rawValue)),"
            + "\"gateway\":\(route.gateway.map(string) ?? "null"),\"interface\":\(reference(route.interface)),"
            + "\"local\":\(route.isLocal),\"status\":\(string(route.status.rawValue)),\"underlay\":\(reference(route.underlay)),"
            + "\"usable\":\(route.isUsable)}"
    }

    /// A JSON array of destination routes (`reach status --to HOST --json`).
    public static func text(_ routes: [DestinationRoute]) -> String {
        "[" + routes.map(text).joined(separator: ",") + "]"
    }

    static func text(_ identity: PathIdentity) -> String {
        var out = "{\"gateways\":\(strings(identity.gateways))"
        if let index = identity.index { out += ",\"index\":\(index)" }
        if let interface = identity.interface { out += ",\"interface\":\(string(interface))" }
        out += ",\"prefixes\":\(strings(identity.prefixes))"
        if let ssid = identity.ssid { out += ",\"ssid\":\(string(ssid))" }
        if let underlay = identity.underlay { out += ",\"underlay\":\(string(underlay))" }
        return out + "}"
    }

    static func reference(_ reference: InterfaceReference?) -> String {
        guard let reference else { return "null" }
        return "{\"name\":\(string(reference.name)),\"type\":\(string(reference.type.rawValue))}"
    }

    static func strings(_ values: [String]) -> String {
        "[" + values.map(string).joined(separator: ",") + "]"
    }

    /// A JSON string literal: quotes, backslashes and control characters escaped.
    public static func string(_ value: String) -> String {
        var out = "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{08}": out += "\\b"
            case "\u{0C}": out += "\\f"
            case let control where control.value < 0x20:
                let hex = String(control.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
