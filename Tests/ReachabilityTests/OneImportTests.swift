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

    /// What a custom `NetworkStateSource` builds comes with the façade too; Core's codecs and
    /// state machines (`DNSMessage`, `TransferGateState`, …) do not: this file would not
    /// compile if it named them (`scripts/check-exports.sh` proves that).
    @Test func aSnapshotCanBeBuiltWithTheFacadeAlone() {
        let snapshot = NetworkSnapshot(
            interfaces: [InterfaceFacts(name: "wwan0", index: 3, flags: [.up, .lowerUp, .running], hardwareType: 1, kind: nil)],
            addresses: [InterfaceAddress(interfaceIndex: 3, family: .ipv4, address: "192.0.2.7", prefixLength: 24)],
            defaultRoutes: [DefaultRoute(family: .ipv4, interfaceIndex: 3)])
        #expect(snapshot.interfaces.first?.name == "wwan0")
    }
}
