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
/// is a tunnel, the underlay is the tunnel's lower device if it has a usable one, else the best
/// usable non-tunnel default route; the status is the underlay's type and the cost is the
/// underlay's, unless a user rule set the tunnel's cost. The path is expensive when any reachable
/// family leaves through an expensive interface.
public struct PathEvaluator: Sendable {
    public var classifier: Classifier

    public init(classifier: Classifier = Classifier()) {
        self.classifier = classifier
    }

    public func evaluate(_ snapshot: NetworkSnapshot) -> NetworkPath {
        let classifications = classifier.classify(all: snapshot.interfaces)
        return evaluate(snapshot, classifications: classifications)
    }

    /// Evaluates reusing the classifications of interfaces whose facts did not change.
    public func evaluate(_ snapshot: NetworkSnapshot, cache: inout ClassificationCache) -> NetworkPath {
        evaluate(snapshot, classifications: cache.classify(all: snapshot.interfaces, with: classifier))
    }

    /// Evaluates with classifications computed beforehand (the monitor caches them).
    public func evaluate(_ snapshot: NetworkSnapshot, classifications: [Int32: Classification]) -> NetworkPath {
        let facts = Dictionary(snapshot.interfaces.map { ($0.index, $0) }, uniquingKeysWith: { first, _ in first })
        var addresses: [Int32: [InterfaceAddress]] = [:]
        for address in snapshot.addresses { addresses[address.interfaceIndex, default: []].append(address) }

        func type(_ index: Int32) -> InterfaceType { classifications[index]?.type ?? .other }
        func usable(_ index: Int32) -> Bool {
            guard let link = facts[index], let flags = link.flags else { return false }
            return flags.canCarryTraffic && !flags.contains(.loopback) && link.masterIndex == nil && type(index) != .loopback
        }
        func bestDefaultRoute(_ family: AddressFamily?, where accept: (Int32) -> Bool) -> DefaultRoute? {
            snapshot.defaultRoutes
                .filter { (family == nil || $0.family == family) && usable($0.interfaceIndex) && accept($0.interfaceIndex) }
                .min { ($0.metric, $0.table == 254 ? 0 : 1, $0.interfaceIndex) < ($1.metric, $1.table == 254 ? 0 : 1, $1.interfaceIndex) }
        }
        func egress(_ family: AddressFamily) -> Int32? {
            if let lookup = snapshot.lookups.first(where: { $0.family == family }), usable(lookup.interfaceIndex) {
                return lookup.interfaceIndex
            }
            return bestDefaultRoute(family, where: { _ in true })?.interfaceIndex
        }
        func reachable(_ family: AddressFamily, through index: Int32?) -> Bool {
            guard let index else { return false }
            return addresses[index, default: []].contains { $0.family == family && $0.isUsableForInternet }
        }

        let egress4 = egress(.ipv4)
        let egress6 = egress(.ipv6)
        let ipv4 = reachable(.ipv4, through: egress4)
        let ipv6 = reachable(.ipv6, through: egress6)
        let primaryIndex = ipv4 ? egress4 : (ipv6 ? egress6 : nil)
        let interfaces = publishedInterfaces(snapshot.interfaces, classifications, addresses)

        guard let primaryIndex, let primaryFacts = facts[primaryIndex] else {
            return NetworkPath(status: .unreachable, interfaces: interfaces)
        }
        let primaryType = type(primaryIndex)
        var underlayIndex: Int32?
        if primaryType == .tunnel {
            let notOverlay: (Int32) -> Bool = { type($0) != .tunnel }
            if let parent = primaryFacts.parentIndex, parent != primaryIndex, usable(parent), notOverlay(parent) {
                underlayIndex = parent
            } else {
                let family: AddressFamily = ipv4 ? .ipv4 : .ipv6
                underlayIndex = (bestDefaultRoute(family, where: notOverlay) ?? bestDefaultRoute(nil, where: notOverlay))?.interfaceIndex
            }
        }

        func cost(_ index: Int32) -> Bool {
            let own = classifications[index]
            if type(index) == .tunnel, own?.expensiveIsOverridden != true {
                let under = index == primaryIndex ? underlayIndex : nil
                return under.map { classifications[$0]?.isExpensive ?? false } ?? (own?.isExpensive ?? false)
            }
            return own?.isExpensive ?? false
        }
        var expensive = cost(primaryIndex)
        for (family, index) in [(AddressFamily.ipv4, egress4), (.ipv6, egress6)] {
            if let index, reachable(family, through: index), index != primaryIndex { expensive = expensive || cost(index) }
        }

        let transport = underlayIndex.map(type) ?? primaryType
        let status: NetworkPath.Status =
            switch transport {
            case .wifi: .wifi
            case .cellular: .cellular
            case .wired: .wired
            default: .other
            }
        return NetworkPath(
            status: status, isExpensive: expensive, ipv4: ipv4, ipv6: ipv6,
            primary: InterfaceReference(name: primaryFacts.name, type: primaryType),
            underlay: underlayIndex.flatMap { index in facts[index].map { InterfaceReference(name: $0.name, type: type(index)) } },
            interfaces: interfaces)
    }

    private func publishedInterfaces(
        _ all: [InterfaceFacts], _ classifications: [Int32: Classification], _ addresses: [Int32: [InterfaceAddress]]
    ) -> [Interface] {
        all.sorted { $0.index < $1.index }.map { facts in
            let classification = classifications[facts.index] ?? classifier.classify(facts)
            let own = addresses[facts.index, default: []]
            let ordered = own.filter { $0.family == .ipv4 } + own.filter { $0.family == .ipv6 }
            return Interface(
                name: facts.name, index: facts.index, type: classification.type, isExpensive: classification.isExpensive,
                isUp: facts.flags?.contains(.up) ?? false, isRunning: facts.flags?.canCarryTraffic ?? false,
                addresses: ordered.map(\.cidr), evidence: classification.evidenceText)
        }
    }
}
