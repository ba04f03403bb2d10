import ReachabilityCore

/// What the path series show of a path, and so what counts as a change of it: the status,
/// the cost, and the set of interfaces by name, type and own cost.
///
/// Addresses, link state, the primary interface and the network identity are left out: an
/// IPv6 privacy address rotating or a link flapping inside an unchanged path would count as
/// changes the series cannot show, and `reach_path_changes_total` is there to reveal flaps of
/// exactly what the other series show that happened between two scrapes.
struct PathShape: Hashable {
    /// One `reach_interface_info` series.
    struct InterfaceSeries: Hashable {
        let name: String
        let type: InterfaceType
        let isExpensive: Bool

        /// The labels, in the order they are written.
        var dimensions: [(String, String)] {
            [("name", name), ("type", type.rawValue), ("expensive", isExpensive ? "true" : "false")]
        }
    }

    let status: NetworkPath.Status
    let isExpensive: Bool
    let interfaces: Set<InterfaceSeries>

    init(_ path: NetworkPath) {
        status = path.status
        isExpensive = path.isExpensive
        interfaces = Set(path.interfaces.map { InterfaceSeries(name: $0.name, type: $0.type, isExpensive: $0.isExpensive) })
    }
}
