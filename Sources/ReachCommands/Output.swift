import Glibc
package import ReachabilityCore
import SystemPackage

/// Writes a line to stdout, unbuffered, so pipes see each change as it happens.
///
/// Output that cannot be written is a failure, not silence: `reach status > /dev/full` says so
/// and exits 1. A reader that went away (`reach watch | head -1`: EPIPE, when SIGPIPE is
/// ignored) ends the process quietly with 0, as the reader asked for no more.
package func printLine(_ text: String) {
    do {
        try FileDescriptor.standardOutput.writeAll((text + "\n").utf8)
    } catch Errno.brokenPipe {
        exit(0)
    } catch {
        printError("reach: cannot write to standard output: \(error)")
        exit(1)
    }
}

/// Writes bytes to stdout (`reach get -o -`); throws when they cannot be written, so the
/// transfer stops instead of downloading into nowhere.
package func writeStandardOutput(_ bytes: some Sequence<UInt8>) throws {
    try FileDescriptor.standardOutput.writeAll(bytes)
}

/// Writes a line to stderr; a failure to report is not reported.
package func printError(_ text: String) {
    _ = try? FileDescriptor.standardError.writeAll((text + "\n").utf8)
}

/// Writes to stderr without adding a newline (progress redraws).
package func printErrorRaw(_ text: String) {
    _ = try? FileDescriptor.standardError.writeAll(text.utf8)
}

/// Pure formatters for paths and interfaces.
package enum PathFormatter {
    /// `wifi via wlp2s0 (IPv4 IPv6)`, `wifi via wg0 over wlp2s0 (IPv4) expensive`,
    /// `wifi via wlan0 on "Cafe" (IPv4) expensive`, `unreachable`.
    package static func summary(_ path: NetworkPath) -> String {
        guard path.isReachable, let primary = path.primary else { return "unreachable" }
        var text = "\(path.status.rawValue) via \(primary.name)"
        if let underlay = path.underlay { text += " over \(underlay.name)" }
        if let ssid = path.identity.ssid { text += " on \"\(ssid)\"" }
        let families = [path.ipv4 ? "IPv4" : nil, path.ipv6 ? "IPv6" : nil].compactMap { $0 }
        text += " (\(families.joined(separator: " ")))"
        if path.isExpensive { text += " expensive" }
        return text + connectivity(path) + budgets(path)
    }

    /// `; budget sim exhausted, ship ok`: the data budgets counting the path (the daemon's
    /// paths carry them); empty when none does.
    package static func budgets(_ path: NetworkPath) -> String {
        guard !path.budgets.isEmpty else { return "" }
        return "; budget " + path.budgets.map { "\($0.name) \($0.state)" }.joined(separator: ", ")
    }

    /// `, connectivity full`, `, captive portal (log in at URL)`, `, checking connectivity`;
    /// empty when not probing, so the line reads as before validation existed.
    package static func connectivity(_ path: NetworkPath) -> String {
        guard path.isReachable, let validation = path.primaryValidation else { return "" }
        switch validation.connectivity {
        case .unknown: return ", checking connectivity"
        case .portal: return ", captive portal" + (validation.portalURL.map { " (log in at \($0))" } ?? "")
        default: return ", connectivity \(validation.connectivity)"
        }
    }

    /// `example.org (192.0.2.7) via wg0 over wlan0: wifi (IPv4) expensive`.
    package static func summary(_ route: DestinationRoute, host: String) -> String {
        var text = host == route.destination ? route.destination : "\(host) (\(route.destination))"
        if route.isLocal { return text + ": local (an address of this host, via \(route.interface.name))" }
        text += " via \(route.interface.name)"
        if let underlay = route.underlay { text += " over \(underlay.name)" }
        text += ": \(route.status.rawValue) (\(route.family))"
        if route.isExpensive { text += " expensive" }
        if !route.isUsable { text += " unusable" }
        return text
    }

    /// One `watch --json` line: the path's fields after a `time` field.
    package static func jsonLine(_ path: NetworkPath, time: String) -> String {
        PathJSON.text(path, time: time)
    }

    package static func json(_ path: NetworkPath) -> String { PathJSON.text(path) }

    /// `ssid "Home", gateway 192.168.1.1, prefix 192.168.1.0/24`.
    package static func identity(_ identity: PathIdentity) -> String {
        var parts: [String] = []
        if let ssid = identity.ssid { parts.append("ssid \"\(ssid)\"") }
        if !identity.gateways.isEmpty { parts.append("gateway \(identity.gateways.joined(separator: " "))") }
        if !identity.prefixes.isEmpty { parts.append("prefix \(identity.prefixes.joined(separator: " "))") }
        if let index = identity.index, let name = identity.interface { parts.append("\(name) index \(index)") }
        return parts.joined(separator: ", ")
    }

    /// `wlan0: wifi "Cafe" bssid 02:1a:11:00:00:01, 2412 MHz (2.4GHz), signal -30 dBm, tx 54.0 Mbit/s, rx 6.0 Mbit/s`,
    /// or `wlan0: wifi station, not associated`.
    package static func wifi(_ facts: WifiFacts, interface: String) -> String {
        guard let link = facts.association else {
            return "\(interface): wifi \(facts.mode)" + (facts.mode.isClient ? ", not associated" : "")
        }
        var parts = ["\(interface): wifi" + (link.ssid.map { " \"\($0)\"" } ?? "") + " bssid \(link.bssid)"]
        if let frequency = link.frequencyMHz { parts.append("\(frequency) MHz" + (link.band.map { " (\($0))" } ?? "")) }
        if let signal = link.signalDBm { parts.append("signal \(signal) dBm") }
        func mbps(_ kbps: Int) -> String { String(kbps / 1000) + "." + String((kbps % 1000) / 100) + " Mbit/s" }
        if let transmit = link.transmitRateKbps { parts.append("tx \(mbps(transmit))") }
        if let receive = link.receiveRateKbps { parts.append("rx \(mbps(receive))") }
        return parts.joined(separator: ", ")
    }

    /// `--explain`'s account of the interfaces the path leaves through: Wi-Fi facts, then every
    /// signal behind the type and the cost, indented.
    package static func explainEgress(_ path: NetworkPath) -> [String] {
        let names = [path.primary?.name, path.underlay?.name].compactMap { $0 }
        var lines: [String] = []
        for name in names {
            guard let interface = path.interface(named: name) else { continue }
            if let wifi = interface.wifi { lines.append(Self.wifi(wifi, interface: name)) }
            lines.append("\(name): \(interface.type)" + (interface.isExpensive ? ", expensive" : ", not expensive") + ", because:")
            for evidence in interface.evidence { lines.append("  \(evidence)") }
        }
        return lines
    }

    package static func json(_ interfaces: [Interface], withAddresses: Bool = true) -> String {
        PathJSON.text(interfaces, withAddresses: withAddresses)
    }

    package static func json(_ routes: [DestinationRoute]) -> String { PathJSON.text(routes) }

    /// The `interfaces` table.
    package static func table(_ interfaces: [Interface], explain: Bool) -> String {
        var rows = [["INDEX", "NAME", "TYPE", "EXPENSIVE", "STATE", "ADDRESSES"]]
        for interface in interfaces {
            let state = interface.isRunning ? "running" : (interface.isUp ? "up" : "down")
            rows.append([
                String(interface.index), interface.name, interface.type.rawValue, interface.isExpensive ? "yes" : "no", state,
                interface.addresses.joined(separator: " "),
            ])
        }
        let widths = (0..<rows[0].count).map { column in rows.map { $0[column].count }.max() ?? 0 }
        var lines: [String] = []
        for (number, row) in rows.enumerated() {
            let cells = row.enumerated().map { column, cell in
                column == row.count - 1 ? cell : cell + String(repeating: " ", count: widths[column] - cell.count)
            }
            var line = cells.joined(separator: "  ")
            while line.hasSuffix(" ") { line.removeLast() }
            lines.append(line)
            if explain && number > 0 {
                for evidence in interfaces[number - 1].evidence { lines.append("       \(evidence)") }
            }
        }
        return lines.joined(separator: "\n")
    }
}

/// UTC ISO 8601 time with milliseconds, `2026-11-22T10:00:00.123Z`.
package enum Timestamp {
    package static func now() -> String {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return text(seconds: spec.tv_sec, milliseconds: Int32(spec.tv_nsec / 1_000_000))
    }

    /// `2026-11-24T10:00:00.123Z` for a time in milliseconds since the epoch (a probe's start).
    package static func text(millisecondsSinceEpoch value: Int64) -> String {
        let milliseconds = ((value % 1000) + 1000) % 1000
        return text(seconds: Int(truncatingIfNeeded: (value - milliseconds) / 1000), milliseconds: Int32(milliseconds))
    }

    private static func text(seconds epochSeconds: Int, milliseconds: Int32) -> String {
        var parts = tm()
        var seconds = epochSeconds
        gmtime_r(&seconds, &parts)
        func pad(_ value: Int32, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return "\(pad(parts.tm_year + 1900, 4))-\(pad(parts.tm_mon + 1, 2))-\(pad(parts.tm_mday, 2))T"
            + "\(pad(parts.tm_hour, 2)):\(pad(parts.tm_min, 2)):\(pad(parts.tm_sec, 2)).\(pad(milliseconds, 3))Z"
    }
}
