import Glibc

/// The service watchdog systemd runs for this process (`WatchdogSec=`): if no `WATCHDOG=1`
/// arrives within ``interval``, the manager considers the service hung and acts on it.
public struct WatchdogSettings: Sendable, Hashable {
    /// The watchdog timeout (`WATCHDOG_USEC`), at most ``maximumInterval``.
    public let interval: Duration

    /// How often to ping: half the timeout, as sd_watchdog_enabled(3) recommends, so one late
    /// ping does not trip it.
    public var pingInterval: Duration { interval / 2 }

    /// The longest timeout kept: longer ones (days, or values no manager sets) are lowered to
    /// this, which only makes pings more frequent than needed, never too rare.
    public static let maximumInterval: Duration = .seconds(24 * 60 * 60)

    /// Settings for a watchdog timeout of `interval`, lowered to ``maximumInterval``; `nil`
    /// for a zero or negative interval, which means no watchdog.
    public init?(interval: Duration) {
        guard interval > .zero else { return nil }
        self.interval = min(interval, Self.maximumInterval)
    }

    /// Parses `WATCHDOG_USEC` and `WATCHDOG_PID` as sd_watchdog_enabled(3) does, for process
    /// `pid`. `nil` (no watchdog for this process) when the timeout is absent, not all decimal
    /// digits, zero or beyond `UInt64`, or when `watchdogPID` is present but is not `pid`
    /// (the variables were meant for another process, such as a parent).
    public init?(watchdogUSec: String?, watchdogPID: String?, pid: Int32) {
        if let watchdogPID {
            guard let owner = Self.decimal(watchdogPID), owner == UInt64(exactly: pid) else { return nil }
        }
        guard let text = watchdogUSec, let microseconds = Self.decimal(text) else { return nil }
        // Past Int64 microseconds (292,000 years) is far beyond the cap anyway.
        let interval = Int64(exactly: microseconds).map { Duration.microseconds($0) } ?? Self.maximumInterval
        self.init(interval: interval)
    }

    /// The watchdog this process has according to its environment, which is left unchanged
    /// (``SystemdNotifier/takeFromEnvironment()`` reads it and then removes it).
    public static func fromEnvironment() -> WatchdogSettings? {
        fromEnvironment(pid: getpid())
    }

    /// The watchdog process `pid` would have with this environment: `WATCHDOG_USEC`, unless
    /// `WATCHDOG_PID` names another process.
    public static func fromEnvironment(pid: Int32) -> WatchdogSettings? {
        WatchdogSettings(
            watchdogUSec: ProcessEnvironment.value(of: "WATCHDOG_USEC"),
            watchdogPID: ProcessEnvironment.value(of: "WATCHDOG_PID"),
            pid: pid)
    }

    /// A non-empty run of ASCII digits as a `UInt64`; `nil` for anything else (signs, spaces,
    /// overflow).
    static func decimal(_ text: String) -> UInt64? {
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return UInt64(text)
    }
}
