import Testing

@testable import Reachability

/// The validator's loop sleeps in `WakeSignal.wait(until:)`; a signal left behind by a wait that
/// already ended would make every later wait return at once (the loop spinning on a CPU).
struct WakeSignalTests {
    @Test func aWaitEndedBySignalLeavesNoSignalBehindForTheNext() async {
        let wake = WakeSignal()
        wake.signal()
        // Ends through the signal; its deadline sleeper is cancelled, and the group waits for it.
        await wake.wait(until: .now + .seconds(3600))
        #expect(!wake.hasPendingSignal)
    }

    @Test func aWaitEndedByItsDeadlineLeavesNoSignalBehind() async {
        let wake = WakeSignal()
        await wake.wait(until: .now - .seconds(1))
        #expect(!wake.hasPendingSignal)
    }

    @Test func aSignalBeforeTheWaitIsKeptForIt() async {
        let wake = WakeSignal()
        wake.signal()
        #expect(wake.hasPendingSignal)
        await wake.wait(until: nil)
        #expect(!wake.hasPendingSignal)
    }

    @Test func manyWaitsEndedBySignalsEachTakeExactlyOne() async {
        let wake = WakeSignal()
        for _ in 0..<50 {
            wake.signal()
            await wake.wait(until: .now + .seconds(3600))
            #expect(!wake.hasPendingSignal)
        }
    }
}
