@testable import ReachabilityProcesses
import Testing

@Suite("A command's output is copied at a bounded rate")
struct OutputAllowanceTests {
    @Test func aBurstPassesThenTheRateHolds() {
        var allowance = OutputAllowance(burst: 1000, perSecond: 100)
        let start = ContinuousClock.now
        #expect(allowance.take(1000, at: start) == .zero)
        // 100 more bytes at once: one second of rate to wait.
        #expect(allowance.take(100, at: start) == .seconds(1))
        // A second later the debt is paid: 50 bytes need half a second more.
        #expect(allowance.take(50, at: start + .seconds(1)) == .milliseconds(500))
        // Ten quiet seconds refill the burst, no more.
        #expect(allowance.take(1000, at: start + .seconds(12)) == .zero)
    }
}
