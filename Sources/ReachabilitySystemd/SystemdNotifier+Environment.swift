import Glibc

extension SystemdNotifier {
    /// The variables systemd sets for a `Type=notify` service with a watchdog.
    static let environmentVariables = ["NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID"]

    /// The notifier for the socket in `$NOTIFY_SOCKET`, with ``watchdogSettings`` from
    /// `WATCHDOG_USEC` and `WATCHDOG_PID` (see
    /// ``WatchdogSettings/init(watchdogUSec:watchdogPID:pid:)``); `nil` when `NOTIFY_SOCKET` is
    /// unset, empty or not a valid address.
    ///
    /// Removes all three variables from the environment in any case, so commands this process
    /// starts do not notify the manager in its name or inherit its watchdog. Call it once,
    /// early, before other threads read the environment (`unsetenv` is not thread-safe).
    public static func takeFromEnvironment() -> SystemdNotifier? {
        let socketPath = ProcessEnvironment.value(of: "NOTIFY_SOCKET")
        let watchdog = WatchdogSettings.fromEnvironment()
        for name in environmentVariables { ProcessEnvironment.remove(name) }
        guard let socketPath else { return nil }
        return SystemdNotifier(socketPath: socketPath, watchdog: watchdog)
    }
}
