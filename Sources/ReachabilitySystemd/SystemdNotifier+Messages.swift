import Glibc

extension SystemdNotifier {
    /// Tells the manager startup is finished: `READY=1`, `STATUS=status` and `MAINPID` (this
    /// process) in one datagram, so the status shows the moment the unit turns active.
    public func ready(status: String) throws(SystemdNotifyError) {
        try send([("READY", "1"), ("STATUS", status), ("MAINPID", String(getpid()))])
    }

    /// Sets the one-line status `systemctl status` shows (made one line by ``statusLine(_:)``).
    public func status(_ text: String) throws(SystemdNotifyError) {
        try send([("STATUS", text)])
    }

    /// Pings the watchdog (`WATCHDOG=1`); call it every ``WatchdogSettings/pingInterval``.
    public func watchdog() throws(SystemdNotifyError) {
        try send([("WATCHDOG", "1")])
    }

    /// Tells the manager shutdown has begun: `STOPPING=1` with `STATUS=status`.
    public func stopping(status: String) throws(SystemdNotifyError) {
        try send([("STOPPING", "1"), ("STATUS", status)])
    }

    /// Asks for `duration` more before the start, stop or runtime timeout in progress expires
    /// (`EXTEND_TIMEOUT_USEC`, counted from now). Negative durations count as zero.
    public func extendTimeout(_ duration: Duration) throws(SystemdNotifyError) {
        try send([("EXTEND_TIMEOUT_USEC", String(Self.microseconds(duration)))])
    }

    /// `duration` in whole microseconds, clamped to 0…`UInt64.max` rather than overflowing.
    static func microseconds(_ duration: Duration) -> UInt64 {
        // Both components carry the duration's sign (truncating division).
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0, attoseconds >= 0 else { return 0 }
        let (whole, overflow) = UInt64(seconds).multipliedReportingOverflow(by: 1_000_000)
        let (total, carry) = whole.addingReportingOverflow(UInt64(attoseconds / 1_000_000_000_000))
        return overflow || carry ? .max : total
    }
}
