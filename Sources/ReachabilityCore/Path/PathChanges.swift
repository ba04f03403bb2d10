/// What differs between two paths, in the words a line about the change can use: a path
/// published because an address came or an interface's evidence changed looks, printed by its
/// status alone, like the one before; ``NetworkPath/changes(since:)`` says what moved.
///
/// An option set that can grow (new members are new aspects of a path).
public struct PathChanges: OptionSet, Sendable, Hashable, CustomStringConvertible {
    public let rawValue: UInt32
    /// A set from its bits.
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// `status`: the kind of network (or none).
    public static let status = PathChanges(rawValue: 1 << 0)
    /// `isExpensive`.
    public static let cost = PathChanges(rawValue: 1 << 1)
    /// `ipv4` or `ipv6`: which families reach beyond the host.
    public static let families = PathChanges(rawValue: 1 << 2)
    /// `primary` or `underlay`: the interfaces traffic leaves by.
    public static let route = PathChanges(rawValue: 1 << 3)
    /// `identity` apart from the route: gateways, prefixes, the Wi-Fi network's name.
    public static let identity = PathChanges(rawValue: 1 << 4)
    /// `connectivity` or `portalURL`.
    public static let connectivity = PathChanges(rawValue: 1 << 5)
    /// `budgets`: a data budget's state.
    public static let budgets = PathChanges(rawValue: 1 << 6)
    /// An interface came or went, or its type, cost or state changed.
    public static let interfaces = PathChanges(rawValue: 1 << 7)
    /// An interface's addresses.
    public static let addresses = PathChanges(rawValue: 1 << 8)
    /// An interface's evidence, validation or Wi-Fi facts (signal, access point, rate).
    public static let interfaceDetails = PathChanges(rawValue: 1 << 9)

    /// What ``summary`` (and `reach watch`) reports: a change of these is a change of the path's summary.
    public static let summary: PathChanges = [.status, .cost, .families, .route, .identity, .connectivity]

    private static let names: [(PathChanges, String)] = [
        (.status, "status"), (.cost, "cost"), (.families, "families"), (.route, "route"), (.identity, "identity"),
        (.connectivity, "connectivity"), (.budgets, "budgets"), (.interfaces, "interfaces"), (.addresses, "addresses"),
        (.interfaceDetails, "interface details"),
    ]

    /// The members' names, comma-separated (`addresses, interface details`); `none` for none.
    public var description: String {
        let shown = Self.names.filter { contains($0.0) }.map(\.1)
        return shown.isEmpty ? "none" : shown.joined(separator: ", ")
    }
}

extension NetworkPath {
    /// What differs from `previous`.
    public func changes(since previous: NetworkPath) -> PathChanges {
        var changes: PathChanges = []
        if status != previous.status { changes.insert(.status) }
        if isExpensive != previous.isExpensive { changes.insert(.cost) }
        if ipv4 != previous.ipv4 || ipv6 != previous.ipv6 { changes.insert(.families) }
        if primary != previous.primary || underlay != previous.underlay { changes.insert(.route) }
        var identity = self.identity, before = previous.identity
        (identity.interface, identity.index, identity.underlay) = (nil, nil, nil)
        (before.interface, before.index, before.underlay) = (nil, nil, nil)
        if identity != before { changes.insert(.identity) }
        if connectivity != previous.connectivity || portalURL != previous.portalURL { changes.insert(.connectivity) }
        if budgets != previous.budgets { changes.insert(.budgets) }
        changes.formUnion(Self.interfaceChanges(interfaces, since: previous.interfaces))
        return changes
    }

    private static func interfaceChanges(_ now: [Interface], since before: [Interface]) -> PathChanges {
        let earlier = Dictionary(before.map { ($0.index, $0) }, uniquingKeysWith: { first, _ in first })
        var changes: PathChanges = now.count == before.count ? [] : .interfaces
        for interface in now {
            guard let old = earlier[interface.index] else {
                changes.insert(.interfaces)
                continue
            }
            if (interface.name, interface.type, interface.isExpensive, interface.isUp, interface.isRunning)
                != (old.name, old.type, old.isExpensive, old.isUp, old.isRunning) { changes.insert(.interfaces) }
            if interface.addresses != old.addresses { changes.insert(.addresses) }
            if interface.evidence != old.evidence || interface.validation != old.validation || interface.wifi != old.wifi {
                changes.insert(.interfaceDetails)
            }
        }
        return changes
    }
}
