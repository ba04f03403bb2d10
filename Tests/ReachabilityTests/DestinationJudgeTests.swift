import Foundation
import Reachability
import ReachabilityCore
import ReachabilityLinux
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

    /// A hundred names whose lookups never answer (until the test lets them) delay nobody
    /// else: an address literal and a name that resolves are judged at once, and a change of
    /// the kernel's state reaches them while the hundred lookups still hang. On the old judge
    /// every round resolved every name in turn before it told anyone.
    @Test func slowNamesDelayOnlyThemselves() async throws {
        let gate = DispatchSemaphore(value: 0)
        let hung = Atomic<Int>(0)
        let lookups = HostLookups { host in
            if host == "fast.test" { return .success(["203.0.113.9"]) }
            hung.wrappingAdd(1, ordering: .relaxed)
            gate.wait()
            return .failure(ResolutionError(host: host, reason: "Name or service not known"))
        }
        let source = FakeNetworkSource(initial: Self.uplink("wifi0", index: 2))
        let monitor = NetworkMonitor(
            source: source,
            configuration: MonitorConfiguration(overrides: [try OverrideRule(parsing: "wifi0=wifi"), try OverrideRule(parsing: "cell0=cellular")]),
            clock: ContinuousClock())
        monitor.resolveNames(with: lookups)
        var slow: [Task<Void, Never>] = []
        for index in 0..<100 {
            let stream = monitor.networks(to: "slow\(index).test")
            slow.append(Task { do { for try await _ in stream {} } catch {} })
        }
        let seen = Seen()
        var tasks: [Task<Void, Never>] = []
        for (index, host) in ["198.51.100.7", "fast.test"].enumerated() {
            let stream = monitor.networks(to: host)
            tasks.append(Task {
                do {
                    for try await network in stream { seen.value.withLock { $0[index, default: []].append(network.status) } }
                } catch {}
            })
        }
        let both = { (status: NetworkPath.Status) in seen.value.withLock { seen in seen.count == 2 && seen.values.allSatisfy { $0.last == status } } }
        for _ in 0..<1000 where !both(.wifi) { try await Task.sleep(for: .milliseconds(5)) }
        #expect(both(.wifi), "\(seen.value.withLock { $0.description })")
        // Judged by the address its name resolved to, not by the default path for want of one.
        #expect(source.destinationsAsked.contains("203.0.113.9"))
        #expect(hung.load(ordering: .relaxed) == 100)
        source.send(Self.uplink("cell0", index: 3))
        for _ in 0..<1000 where !both(.cellular) { try await Task.sleep(for: .milliseconds(5)) }
        #expect(both(.cellular), "\(seen.value.withLock { $0.description })")
        #expect(lookups.pending >= 99, "\(lookups.pending) lookups pending")
        for task in tasks + slow { task.cancel() }
        for _ in 0..<100 { gate.signal() }
        for task in tasks + slow { await task.value }
    }
}
