import Foundation
import Reachability
import ReachabilityCore
import ReachabilityTestKit
import Synchronization
import Testing

private final class Seen: Sendable {
    let value = Mutex<[Int: [NetworkPath.Status]]>([:])
}

/// Many streams to one destination cost one judgement per change, not one each.
@Suite("Destinations judged once per change")
struct DestinationJudgeTests {
    private static func uplink(_ name: String, index: Int32) -> NetworkSnapshot {
        NetworkSnapshot(
            interfaces: [InterfaceFacts(name: name, index: index, flags: [.up, .lowerUp, .running], hardwareType: 1, kind: "veth")],
            addresses: [InterfaceAddress(interfaceIndex: index, family: .ipv4, address: "192.0.2.\(index)", prefixLength: 24)],
            defaultRoutes: [DefaultRoute(family: .ipv4, interfaceIndex: index)])
    }

    @Test func fiveHundredStreamsToTwoHostsShareEachChangesLookup() async throws {
        let source = FakeNetworkSource(initial: Self.uplink("wifi0", index: 2))
        let monitor = NetworkMonitor(
            source: source,
            configuration: MonitorConfiguration(overrides: [try OverrideRule(parsing: "wifi0=wifi"), try OverrideRule(parsing: "cell0=cellular")]),
            clock: ContinuousClock())
        let seen = Seen()
        var tasks: [Task<Void, Never>] = []
        for index in 0..<500 {
            let host = index % 2 == 0 ? "198.51.100.7" : "203.0.113.9"
            let stream = monitor.networks(to: host)
            tasks.append(Task {
                do {
                    for try await network in stream { seen.value.withLock { $0[index, default: []].append(network.status) } }
                } catch {}
            })
        }
        let all = { (status: NetworkPath.Status) in seen.value.withLock { seen in seen.count == 500 && seen.values.allSatisfy { $0.last == status } } }
        for _ in 0..<1000 where !all(.wifi) { try await Task.sleep(for: .milliseconds(5)) }
        #expect(all(.wifi))
        let before = source.routeReads
        source.send(Self.uplink("cell0", index: 3))
        for _ in 0..<1000 where !all(.cellular) { try await Task.sleep(for: .milliseconds(5)) }
        #expect(all(.cellular))
        // One reading towards both hosts per change (a change arriving mid-round adds one more).
        #expect(source.routeReads - before <= 2, "\(source.routeReads - before) readings for one change")
        // Streams that arrive during a round share the next one: a handful of rounds, never 500.
        #expect(before <= 10, "\(before) readings to start 500 streams")
        for task in tasks { task.cancel() }
        for task in tasks { await task.value }
    }
}
