import Glibc
import ReachabilitySystemd
import Testing

/// `WATCHDOG_USEC` and `WATCHDOG_PID` read as sd_watchdog_enabled(3) does; bad values mean no
/// watchdog, never a crash.
@Suite struct WatchdogSettingsTests {
    @Test func timeoutAndPingInterval() throws {
        let settings = try #require(WatchdogSettings(watchdogUSec: "30000000", watchdogPID: nil, pid: 42))
        #expect(settings.interval == .seconds(30))
        #expect(settings.pingInterval == .seconds(15))
    }

    @Test func aPIDNamingThisProcessIsHonoured() {
        #expect(WatchdogSettings(watchdogUSec: "1000", watchdogPID: "42", pid: 42)?.interval == .milliseconds(1))
    }

    @Test(arguments: ["41", "", "abc", "-42", " 42", "4294967338"])
    func aPIDNamingAnotherProcessMeansNoWatchdog(_ watchdogPID: String) {
        #expect(WatchdogSettings(watchdogUSec: "30000000", watchdogPID: watchdogPID, pid: 42) == nil)
    }

    @Test(arguments: ["", "abc", "-5", "0", "000", "+5", " 5", "5 ", "1e6", "٣", String(repeating: "9", count: 30)])
    func badTimeoutsMeanNoWatchdog(_ watchdogUSec: String) {
        #expect(WatchdogSettings(watchdogUSec: watchdogUSec, watchdogPID: nil, pid: 42) == nil)
    }

    @Test func anAbsentTimeoutMeansNoWatchdog() {
        #expect(WatchdogSettings(watchdogUSec: nil, watchdogPID: "42", pid: 42) == nil)
    }

    @Test(arguments: ["86400000001", "9223372036854775807", "18446744073709551615"])
    func absurdTimeoutsAreCapped(_ watchdogUSec: String) {
        #expect(WatchdogSettings(watchdogUSec: watchdogUSec, watchdogPID: nil, pid: 42)?.interval == WatchdogSettings.maximumInterval)
    }

    @Test func intervalsMustBePositive() {
        #expect(WatchdogSettings(interval: .zero) == nil)
        #expect(WatchdogSettings(interval: .seconds(-1)) == nil)
        #expect(WatchdogSettings(interval: .seconds(10))?.pingInterval == .seconds(5))
    }
}
