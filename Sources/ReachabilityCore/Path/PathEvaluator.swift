/// Turns a ``NetworkSnapshot`` into a ``NetworkPath``: a pure function, tested with tables.
///
/// The rules, per address family:
/// - A link is usable only when UP, LOWER_UP and RUNNING, not loopback and not enslaved to a
///   bridge or bond.
/// - The egress is the interface of the kernel's route lookup towards the probe address when
///   that interface is usable (this honours metrics and policy routing); otherwise the usable
///   default route with the lowest metric (main table first on a tie, then lowest index).
/// - The family is reachable when its egress has a global, non-tentative address of the family.
///
/// The primary interface is the IPv4 egress when IPv4 is reachable, else the IPv6 egress. When it
/// is a tunnel, the underlay is, in order: the tunnel's lower device if usable; the egress of
/// the lookup repeated with a firewall mark that policy rules test (where a VPN sends its own
/// traffic); the best usable non-tunnel default route. The status is then the underlay's type,
/// and the cost is the underlay's unless a user rule set the tunnel's cost. The path is
/// expensive when any reachable family leaves through an expensive interface.
public struct PathEvaluator: Sendable {
    /// Decides each interface's type and cost, with the user's override rules.
    public var classifier: Classifier

    /// An evaluator classifying with `classifier` (by default, kernel signals and no overrides).
    public init(classifier: Classifier = Classifier()) {
        self.classifier = classifier
    }

    /// The path a snapshot describes, every interface classified afresh.
    public func evaluate(_ snapshot: NetworkSnapshot) -> NetworkPath {
        evaluate(snapshot, classifications: classifier.classify(all: snapshot.interfaces))
    }

    /// Evaluates reusing the classifications of interfaces whose facts did not change.
    public func evaluate(_ snapshot: NetworkSnapshot, cache: inout ClassificationCache) -> NetworkPath {
        evaluate(snapshot, classifications: cache.classify(all: snapshot.interfaces, with: classifier))
    }

    /// Evaluates with classifications computed beforehand.
    public func evaluate(_ snapshot: NetworkSnapshot, classifications: [Int32: Classification]) -> NetworkPath {
        let view = SnapshotView(snapshot, classifications)
        let interfaces = publishedInterfaces(snapshot.interfaces, classifications, view.addresses)

        let egress4 = view.egress(.ipv4)
        let egress6 = view.egress(.ipv6)
        let ipv4 = view.reachable(.ipv4, through: egress4?.index)
        let ipv6 = view.reachable(.ipv6, through: egress6?.index)
        let primaryFamily: AddressFamily? = ipv4 ? .ipv4 : (ipv6 ? .ipv6 : nil)
        guard let primaryFamily, let primary = primaryFamily == .ipv4 ? egress4 : egress6, let primaryFacts = view.facts(primary.index) else {
            return NetworkPath(status: .unreachable, interfaces: interfaces, connectivity: Self.unroutedConnectivity(snapshot, view))
        }
        let underlay = view.underlay(of: primary.index, family: primaryFamily, marked: snapshot.markedLookups)

        var expensive = view.cost(primary.index, underlay: underlay)
        for (family, egress) in [(AddressFamily.ipv4, egress4), (.ipv6, egress6)] {
            guard let egress, egress.index != primary.index, view.reachable(family, through: egress.index) else { continue }
            let otherUnderlay = view.type(egress.index) == .tunnel ? view.underlay(of: egress.index, family: family, marked: snapshot.markedLookups) : nil
            expensive = expensive || view.cost(egress.index, underlay: otherUnderlay)
        }

        let gateways = [(ipv4, egress4), (ipv6, egress6)].compactMap { reachable, egress in reachable ? egress?.gateway : nil }
        // One entry per prefix, not per address: a second address in a prefix (an IPv6 privacy
        // address, added daily) is the same network.
        var seenPrefixes: Set<String> = []
        let prefixes = view.addresses[primary.index, default: []].filter(\.isUsableAsSource).compactMap {
            IPPrefix.network(of: $0.address, prefixLength: $0.prefixLength, family: $0.family)
        }.filter { seenPrefixes.insert($0).inserted }
        // The Wi-Fi network's name is part of where the path leads (of the underlay, under a
        // VPN); its BSSID is not: a roam between access points of one SSID is the same network.
        let ssid = (underlay.flatMap(view.facts) ?? primaryFacts).wifi?.association?.ssid
        let identity = PathIdentity(
            interface: primaryFacts.name, index: primary.index, gateways: gateways, prefixes: prefixes,
            underlay: underlay.flatMap { view.facts($0)?.name }, ssid: ssid)
        return NetworkPath(
            status: Self.status(underlay.map(view.type) ?? view.type(primary.index)), isExpensive: expensive, ipv4: ipv4, ipv6: ipv6,
            primary: InterfaceReference(name: primaryFacts.name, type: view.type(primary.index)),
            underlay: underlay.flatMap(view.reference), interfaces: interfaces, identity: identity)
    }

    /// Without a usable default route: `local` when a running interface other than loopback has
    /// a global address (a LAN without a way out), `none` otherwise. Known without a probe.
    static func unroutedConnectivity(_ snapshot: NetworkSnapshot, _ view: SnapshotView) -> Connectivity {
        let hasLocalNetwork = snapshot.interfaces.contains { facts in
            view.type(facts.index) != .loopback && facts.canCarryTraffic
                && view.addresses[facts.index, default: []].contains(where: \.isUsableAsSource)
        }
        return hasLocalNetwork ? .local : .none
    }

    /// Where traffic to each looked-up destination would go, with its transport and cost.
    /// `lookups` are kernel answers for the destinations; `marked` the same lookups repeated with
    /// the firewall marks that policy rules test.
    public func routes(for lookups: [RouteLookup], marked: [RouteLookup] = [], in snapshot: NetworkSnapshot) -> [DestinationRoute] {
        let view = SnapshotView(snapshot, classifier.classify(all: snapshot.interfaces))
        return lookups.compactMap { lookup in
            guard let reference = view.reference(lookup.interfaceIndex) else { return nil }
            let sameDestination = marked.filter { $0.destination == lookup.destination }
            let underlay = view.type(lookup.interfaceIndex) == .tunnel
                ? view.underlay(of: lookup.interfaceIndex, family: lookup.family, marked: sameDestination) : nil
            return DestinationRoute(
                destination: lookup.destination ?? "", family: lookup.family, interface: reference,
                underlay: underlay.flatMap(view.reference), gateway: lookup.gateway,
                status: Self.status(underlay.map(view.type) ?? reference.type),
                isExpensive: view.cost(lookup.interfaceIndex, underlay: underlay),
                isUsable: lookup.isLocal || (view.usable(lookup.interfaceIndex) && view.reachable(lookup.family, through: lookup.interfaceIndex)),
                isLocal: lookup.isLocal)
        }
    }

    static func status(_ transport: InterfaceType) -> NetworkPath.Status {
        switch transport {
        case .wifi: .wifi
        case .cellular: .cellular
        case .wired: .wired
        default: .other
        }
    }

    private func publishedInterfaces(
        _ all: [InterfaceFacts], _ classifications: [Int32: Classification], _ addresses: [Int32: [InterfaceAddress]]
    ) -> [Interface] {
        // Snapshots from the kernel come sorted by index: checking is cheaper than sorting again.
        let isSorted = all.indices.dropFirst().allSatisfy { all[$0 - 1].index < all[$0].index }
        let ordered = isSorted ? all : all.sorted { $0.index < $1.index }
        return ordered.map { facts in
            let classification = classifications[facts.index] ?? classifier.classify(facts)
            let own = addresses[facts.index, default: []]
            let ordered = own.filter { $0.family == .ipv4 } + own.filter { $0.family == .ipv6 }
            return Interface(
                name: facts.name, index: facts.index, type: classification.type, isExpensive: classification.isExpensive,
                isUp: facts.flags?.contains(.up) ?? false, isRunning: facts.canCarryTraffic,
                addresses: ordered.map(\.cidr), evidence: classification.evidence, wifi: facts.wifi)
        }
    }
}

/// A snapshot indexed for evaluation.
struct SnapshotView {
    struct Egress {
        var index: Int32
        var gateway: String?
    }

    let snapshot: NetworkSnapshot
    let classifications: [Int32: Classification]
    /// Where each interface sits in `snapshot.interfaces`: positions, not copies of the facts
    /// (copying thousands of facts per evaluation was a tenth of a storm's CPU).
    let positions: [Int32: Int]
    let addresses: [Int32: [InterfaceAddress]]

    init(_ snapshot: NetworkSnapshot, _ classifications: [Int32: Classification]) {
        self.snapshot = snapshot
        self.classifications = classifications
        var positions: [Int32: Int] = [:]
        positions.reserveCapacity(snapshot.interfaces.count)
        for position in snapshot.interfaces.indices where positions[snapshot.interfaces[position].index] == nil {
            positions[snapshot.interfaces[position].index] = position
        }
        self.positions = positions
        var byIndex: [Int32: [InterfaceAddress]] = [:]
        for address in snapshot.addresses { byIndex[address.interfaceIndex, default: []].append(address) }
        addresses = byIndex
    }

    func type(_ index: Int32) -> InterfaceType { classifications[index]?.type ?? .other }

    /// The facts of interface `index`, if present.
    func facts(_ index: Int32) -> InterfaceFacts? { positions[index].map { snapshot.interfaces[$0] } }

    func reference(_ index: Int32) -> InterfaceReference? {
        positions[index].map { InterfaceReference(name: snapshot.interfaces[$0].name, type: type(index)) }
    }

    func usable(_ index: Int32) -> Bool {
        guard let position = positions[index], let flags = snapshot.interfaces[position].flags else { return false }
        return snapshot.interfaces[position].canCarryTraffic && !flags.contains(.loopback) && snapshot.interfaces[position].masterIndex == nil
            && type(index) != .loopback
    }

    func bestDefaultRoute(_ family: AddressFamily?, where accept: (Int32) -> Bool) -> DefaultRoute? {
        snapshot.defaultRoutes
            .filter { (family == nil || $0.family == family) && usable($0.interfaceIndex) && accept($0.interfaceIndex) }
            .min { ($0.metric, $0.table == 254 ? 0 : 1, $0.interfaceIndex) < ($1.metric, $1.table == 254 ? 0 : 1, $1.interfaceIndex) }
    }

    func egress(_ family: AddressFamily) -> Egress? {
        if let lookup = snapshot.lookups.first(where: { $0.family == family }), usable(lookup.interfaceIndex) {
            return Egress(index: lookup.interfaceIndex, gateway: lookup.gateway)
        }
        return bestDefaultRoute(family, where: { _ in true }).map { Egress(index: $0.interfaceIndex, gateway: $0.gateway) }
    }

    func reachable(_ family: AddressFamily, through index: Int32?) -> Bool {
        guard let index else { return false }
        return addresses[index, default: []].contains { $0.family == family && $0.isUsableForInternet }
    }

    /// The physical interface carrying a tunnel's traffic.
    func underlay(of tunnel: Int32, family: AddressFamily, marked: [RouteLookup]) -> Int32? {
        guard type(tunnel) == .tunnel else { return nil }
        let physical: (Int32) -> Bool = { $0 != tunnel && self.usable($0) && self.type($0) != .tunnel }
        if let parent = facts(tunnel)?.parentIndex, physical(parent) { return parent }
        if let lookup = marked.first(where: { $0.family == family && physical($0.interfaceIndex) }) { return lookup.interfaceIndex }
        return (bestDefaultRoute(family, where: physical) ?? bestDefaultRoute(nil, where: physical))?.interfaceIndex
    }

    /// An interface's cost; a tunnel's is its underlay's unless a rule set it.
    func cost(_ index: Int32, underlay: Int32?) -> Bool {
        let own = classifications[index]
        if type(index) == .tunnel, own?.expensiveIsOverridden != true, let underlay {
            return classifications[underlay]?.isExpensive ?? false
        }
        return own?.isExpensive ?? false
    }
}
