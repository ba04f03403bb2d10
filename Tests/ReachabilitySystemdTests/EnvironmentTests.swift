import Glibc
import ReachabilitySystemd
import ReachabilityTestKit
import Testing

/// `takeFromEnvironment()` against the real process environment: serialized, and every test
/// restores the variables it touched. No other test reads these variables.
@Suite(.serialized) struct EnvironmentTests {
    static let names = ["NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID"]

    /// Runs `body` with the variables set to `values` (absent: unset), then restores them.
    private func withEnvironment(_ values: [String: String], _ body: () throws -> Void) rethrows {
        let saved = Self.names.map { name in (name, getenv(name).map { String(cString: $0) }) }
        defer {
            for (name, value) in saved {
                if let value { setenv(name, value, 1) } else { unsetenv(name) }
            }
        }
        for name in Self.names {
            if let value = values[name] { setenv(name, value, 1) } else { unsetenv(name) }
        }
        try body()
    }

    private func isSet(_ name: String) -> Bool { getenv(name) != nil }

    @Test func takingUnsetsTheVariablesAndKeepsTheWatchdog() throws {
        let receiver = try NotifySocketReceiver()
        let values = ["NOTIFY_SOCKET": receiver.path, "WATCHDOG_USEC": "20000000", "WATCHDOG_PID": String(getpid())]
        try withEnvironment(values) {
            let notifier = try #require(SystemdNotifier.takeFromEnvironment())
            #expect(Self.names.allSatisfy { !isSet($0) })
            #expect(notifier.socketPath == receiver.path)
            #expect(notifier.watchdogSettings?.interval == .seconds(20))
            #expect(notifier.watchdogSettings?.pingInterval == .seconds(10))
            try notifier.ready(status: "Ready")
            #expect(receiver.next(timeout: .seconds(10))?["READY"] == "1")
        }
    }

    @Test func aWatchdogForAnotherProcessIsDropped() throws {
        try withEnvironment(["NOTIFY_SOCKET": "/run/test/notify", "WATCHDOG_USEC": "20000000", "WATCHDOG_PID": String(getpid() + 1)]) {
            let notifier = try #require(SystemdNotifier.takeFromEnvironment())
            #expect(notifier.watchdogSettings == nil)
            #expect(Self.names.allSatisfy { !isSet($0) })
        }
    }

    @Test(arguments: [nil, "", "relative/notify", "@"])
    func noValidSocketMeansNoNotifierButTheVariablesGoAnyway(_ socket: String?) {
        var values = ["WATCHDOG_USEC": "20000000", "WATCHDOG_PID": String(getpid())]
        values["NOTIFY_SOCKET"] = socket
        withEnvironment(values) {
            #expect(SystemdNotifier.takeFromEnvironment() == nil)
            #expect(Self.names.allSatisfy { !isSet($0) })
        }
    }

    @Test func readingTheWatchdogLeavesTheEnvironmentAlone() {
        withEnvironment(["NOTIFY_SOCKET": "/run/test/notify", "WATCHDOG_USEC": "4000000"]) {
            #expect(WatchdogSettings.fromEnvironment()?.interval == .seconds(4))
            #expect(WatchdogSettings.fromEnvironment(pid: getpid() + 1)?.interval == .seconds(4))
            #expect(Self.names.prefix(2).allSatisfy(isSet))
        }
        withEnvironment(["WATCHDOG_USEC": "4000000", "WATCHDOG_PID": String(getpid())]) {
            #expect(WatchdogSettings.fromEnvironment(pid: getpid() + 1) == nil)
        }
    }
}
