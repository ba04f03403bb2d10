import Reachability
import Testing

/// This file imports only `Reachability`, as the README's library section does: every type an
/// adopter needs for the monitor, rules, policy and gate must be reachable through it.
@Suite("One import")
struct OneImportTests {
    @Test func coreTypesComeWithTheFacade() throws {
        let rule = try OverrideRule(parsing: "usb0=cellular")
        let configuration = MonitorConfiguration(overrides: [rule], debounce: .milliseconds(200))
        let policy = TransferPolicy(cellularSizeLimit: 50_000_000, resumeAfter: .seconds(5))
        let path = NetworkPath(status: .cellular, isExpensive: true, ipv4: true)
        #expect(configuration.overrides == [rule])
        #expect(policy.decide(path, for: Transfer(expectedBytes: 10_000_000)) == .allow)
        #expect(path.summary.status == .cellular)
    }
}
