@testable import ReachabilityDaemon
import Testing

/// The daemon's soft limit of open descriptors follows what its settings may need.
struct DescriptorLimitTests {
    @Test(arguments: [
        // need, soft, hard, raised to, a shortfall told
        (480, 1024, 524_288, nil, false),  // the defaults fit systemd's 1,024
        (1024, 1024, 524_288, nil, false),
        (5_696, 1024, 524_288, 5_696, false),  // --max-running 256: only as far as the need
        (5_696, 1024, 4096, 4096, true),  // the hard limit caps it, and the operator hears why
        (5_696, 4096, 4096, nil, true),  // nothing left to raise
        (5_696, Int.max, Int.max, nil, false),  // unlimited
    ] as [(Int, Int, Int, Int?, Bool)])
    func theSoftLimitRisesOnlyAsFarAsTheNeed(need: Int, soft: Int, hard: Int, raisedTo: Int?, toldShortfall: Bool) {
        let plan = DescriptorLimit.plan(need: need, soft: soft, hard: hard)
        #expect(plan.raiseTo == raisedTo)
        #expect((plan.shortfall != nil) == toldShortfall)
        if let shortfall = plan.shortfall {
            #expect(shortfall.contains("\(need) descriptors") && shortfall.contains("hard limit is \(hard)") && shortfall.contains("--max-running"))
        }
    }

    @Test func theNeedGrowsWithTransfersAndListeners() {
        let defaults = DescriptorLimit.need(maxRunning: 8, listeners: 2, connectionsPerListener: 128)
        #expect(defaults <= 1024, "the defaults must fit the 1,024 systemd gives a service: \(defaults)")
        let busiest = DescriptorLimit.need(maxRunning: 256, listeners: 3, connectionsPerListener: 128)
        // Each transfer may hold 16 connections besides its files.
        #expect(busiest >= 256 * 16 + 3 * 128)
    }
}
