import Foundation
import Testing

/// What the daemon relies on in the units, beyond what systemd-analyze can know.
@Suite struct UnitContentTests {
    private func directives(_ relativePath: String) throws -> Set<String> {
        let text = try String(contentsOfFile: SystemdAnalyze.unitDirectory + "/" + relativePath, encoding: .utf8)
        return Set(text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.hasPrefix("#") })
    }

    @Test(arguments: ["system/reach.service", "user/reach.service"])
    func servicesNotifyAndPingTheWatchdog(_ unit: String) throws {
        let lines = try directives(unit)
        for expected in ["Type=notify", "WatchdogSec=30s", "Restart=on-failure", "TimeoutStopSec=10s"] {
            #expect(lines.contains(expected), "\(unit) lacks \(expected)")
        }
        #expect(lines.contains { $0.hasPrefix("ExecStart=/usr/local/bin/reach daemon") })
        // NOTIFY_SOCKET is only honoured from the main PID unless this says otherwise.
        #expect(!lines.contains { $0.hasPrefix("NotifyAccess=") })
    }

    /// CAP_CHOWN and CAP_FOWNER: a download replacing another user's file keeps its owner and
    /// mode (PartFile.adopt); nothing else.
    @Test func theSystemServiceKeepsOnlyTheOwnershipCapabilities() throws {
        let lines = try directives("system/reach.service")
        for expected in [
            "CapabilityBoundingSet=CAP_CHOWN CAP_FOWNER", "AmbientCapabilities=", "NoNewPrivileges=yes", "ProtectSystem=strict", "StateDirectory=reach",
            "RuntimeDirectory=reach",
            "ExecStart=/usr/local/bin/reach daemon --config /etc/reach/reach.conf --dispatcher-dir /etc/reach/dispatcher.d",
        ] {
            #expect(lines.contains(expected), "reach.service lacks \(expected)")
        }
        #expect(!lines.contains { $0.hasPrefix("ReadWritePaths=") }, "destinations are the administrator's to add")
    }

    @Test func theWaitTemplateWaitsForItsInstance() throws {
        let lines = try directives("system/reach-wait-online@.service")
        #expect(lines.contains("Type=oneshot"))
        #expect(lines.contains("RemainAfterExit=yes"))
        #expect(lines.contains { $0.hasPrefix("ExecStart=/usr/local/bin/reach wait --for %i --timeout ") })
    }
}
