package import ReachabilityCore

/// What `reach status` says about validation, and `--explain`'s account of the probes.
package enum ConnectivityFormatter {
    /// `connectivity: portal (log in at URL)`, or, when nothing was probed,
    /// `connectivity: unknown (not probing; --probe URL turns validation on)`.
    package static func line(_ path: NetworkPath, probing: Bool) -> String {
        guard probing else { return "connectivity: \(path.connectivity) (not probing; --probe URL turns validation on)" }
        var text = "connectivity: \(path.connectivity)"
        if let portal = path.portalURL { text += " (log in at \(portal))" }
        return text
    }

    /// One block per validated interface: its verdict, then each probe — what was asked, out of
    /// which interface, to which address, when, how long it took and the answer.
    package static func explain(_ path: NetworkPath) -> [String] {
        var lines: [String] = []
        for interface in path.interfaces {
            guard let validation = interface.validation else { continue }
            var head = "  \(interface.name): \(validation.connectivity)"
            if let portal = validation.portalURL { head += " (portal \(portal))" }
            if validation.probes.isEmpty { head += ", first probes still out" }
            lines.append(head)
            for probe in validation.probes {
                let address = probe.address.map { " at \($0)" } ?? ""
                lines.append(
                    "    \(probe.kind) \(probe.url)\(address): \(probe.outcome), \(probe.detail) "
                        + "(\(probe.milliseconds) ms, \(Timestamp.text(millisecondsSinceEpoch: probe.startedAt)))")
            }
        }
        return lines
    }
}
