import Foundation
import Reachability
import ReachabilityCore
import ReachabilityLinux
import ReachabilityTestKit
import Testing

/// A monitor of `namespace`'s kernel state. Sysfs points nowhere: `/sys` shows the host's
/// interfaces, not the namespace's, so veths are classified by netlink facts and overrides.
private func kernelMonitor(_ namespace: TestNamespace, overrides: [String] = []) throws -> NetworkMonitor {
    let rules = try overrides.map { try OverrideRule(parsing: $0) }
    return NetworkMonitor(configuration: MonitorConfiguration(
        overrides: rules, sysfsRoot: "/nonexistent/reach-test-sysfs", namespacePath: namespace.namespace.path))
}

/// Two veth pairs whose inner ends `va` and `wa` are up with addresses; peers `vb`, `wb`.
private func twoUplinks(_ ns: TestNamespace) throws {
    try ns.ipBatch([
        "link add va type veth peer name vb", "link add wa type veth peer name wb",
        "link set vb up", "link set wb up", "link set va up", "link set wa up",
        "addr add 10.1.0.2/24 dev va", "addr add 10.2.0.2/24 dev wa",
    ])
}

@Suite("Monitor against the kernel, in private network namespaces", .enabled(if: TestNamespace.isSupported), .serialized)
struct KernelMonitorIntegrationTests {
    @Test func vethLifecycleAppearsAndDisappears() async throws {
        let ns = try TestNamespace()
        let recorder = PathRecorder(try kernelMonitor(ns).paths)
        let initial = try await recorder.wait { _ in true }
        #expect(initial.status == .unreachable)
        #expect(initial.interfaces.map(\.name) == ["lo"])

        try ns.ip("link", "add", "va", "type", "veth", "peer", "name", "vb")
        let added = try await recorder.wait { $0.interface(named: "va") != nil && $0.interface(named: "vb") != nil }
        let va = try #require(added.interface(named: "va"))
        #expect(va.type == .virtual)
        #expect(va.evidence.map(\.description).contains("kind=veth -> virtual [decided]"))
        let decisive = va.evidence.first { $0.isDecisive }
        let decided = try #require(decisive)
        #expect(decided.signal == "kind" && decided.value == "veth" && decided.suggests == .virtual)
        #expect(!va.isUp)

        try ns.ip("link", "set", "va", "up")
        try ns.ip("link", "set", "vb", "up")
        _ = try await recorder.wait { $0.interface(named: "va")?.isRunning == true }

        try ns.ip("link", "del", "va")
        let removed = try await recorder.wait { $0.interface(named: "va") == nil }
        #expect(removed.interface(named: "vb") == nil)
        await recorder.cancel()
    }

    @Test func addressesAreTrackedBothFamilies() async throws {
        let ns = try TestNamespace()
        try twoUplinks(ns)
        let recorder = PathRecorder(try kernelMonitor(ns).paths)
        _ = try await recorder.wait { $0.interface(named: "va")?.addresses.contains("10.1.0.2/24") == true }
        try ns.ip("-6", "addr", "add", "2001:db8:1::2/64", "dev", "va", "nodad")
        _ = try await recorder.wait { $0.interface(named: "va")?.addresses.contains("2001:db8:1::2/64") == true }
        try ns.ip("addr", "del", "10.1.0.2/24", "dev", "va")
        let after = try await recorder.wait { $0.interface(named: "va")?.addresses.contains("10.1.0.2/24") == false }
        #expect(after.interface(named: "va")?.addresses.contains("2001:db8:1::2/64") == true)
        await recorder.cancel()
    }

    @Test func defaultRouteAddedSwitchedByMetricAndRemoved() async throws {
        let ns = try TestNamespace()
        try twoUplinks(ns)
        let recorder = PathRecorder(try kernelMonitor(ns, overrides: ["va=wifi", "wa=cellular"]).paths)
        _ = try await recorder.wait { $0.interface(named: "wa")?.isRunning == true && $0.interface(named: "va")?.isRunning == true }

        try ns.ip("route", "add", "default", "via", "10.1.0.1", "dev", "va", "metric", "100")
        let wifi = try await recorder.wait { $0.status == .wifi }
        #expect(wifi.primary == InterfaceReference(name: "va", type: .wifi))
        #expect(wifi.ipv4 && !wifi.ipv6 && !wifi.isExpensive)

        try ns.ip("route", "add", "default", "via", "10.2.0.1", "dev", "wa", "metric", "50")
        let cellular = try await recorder.wait { $0.status == .cellular }
        #expect(cellular.primary?.name == "wa")
        #expect(cellular.isExpensive)

        let beforeDelete = recorder.paths.count
        try ns.ip("route", "del", "default", "via", "10.2.0.1", "dev", "wa", "metric", "50")
        _ = try await recorder.wait(after: beforeDelete) { $0.status == .wifi }

        try ns.ip("route", "del", "default", "via", "10.1.0.1", "dev", "va", "metric", "100")
        let gone = try await recorder.wait { $0.status == .unreachable && $0.interface(named: "va") != nil }
        #expect(gone.primary == nil && !gone.ipv4)
        await recorder.cancel()
    }

    @Test func twoSameMetricDefaultsOnDifferentLinksWithOneRemoved() async throws {
        // libnl's route cache collapses these two routes into one object and, after deleting
        // one, believes there is no default route left. The kernel still has one.
        let ns = try TestNamespace()
        try twoUplinks(ns)
        let recorder = PathRecorder(try kernelMonitor(ns, overrides: ["va=wifi", "wa=cellular"]).paths)
        _ = try await recorder.wait { $0.interface(named: "wa")?.isRunning == true && $0.interface(named: "va")?.isRunning == true }
        try ns.ip("route", "add", "default", "via", "10.1.0.1", "dev", "va", "metric", "1024")
        try ns.ip("route", "append", "default", "via", "10.2.0.1", "dev", "wa", "metric", "1024")
        let both = try await recorder.wait { $0.isReachable }
        let first = try #require(both.primary?.name)
        let other = first == "va" ? "wa" : "va"
        let firstGateway = first == "va" ? "10.1.0.1" : "10.2.0.1"

        try ns.ip("route", "del", "default", "via", firstGateway, "dev", first, "metric", "1024")
        let remaining = try await recorder.wait { $0.primary?.name == other }
        #expect(remaining.isReachable)
        #expect(remaining.status == (other == "va" ? .wifi : .cellular))
        await recorder.cancel()
    }

    @Test func linkDownMakesTheHostUnreachable() async throws {
        let ns = try TestNamespace()
        try twoUplinks(ns)
        try ns.ip("route", "add", "default", "via", "10.1.0.1", "dev", "va")
        let recorder = PathRecorder(try kernelMonitor(ns, overrides: ["va=wifi"]).paths)
        _ = try await recorder.wait { $0.status == .wifi }
        // Admin down: the kernel drops the routes without sending RTM_DELROUTE.
        try ns.ip("link", "set", "va", "down")
        let down = try await recorder.wait { $0.status == .unreachable }
        #expect(down.interface(named: "va")?.isUp == false)
        let beforeUp = recorder.paths.count
        try ns.ip("link", "set", "va", "up")
        try ns.ip("route", "add", "default", "via", "10.1.0.1", "dev", "va")
        _ = try await recorder.wait(after: beforeUp) { $0.status == .wifi }
        // Carrier loss: the route stays but the link cannot carry traffic.
        let beforeCarrierLoss = recorder.paths.count
        try ns.ip("link", "set", "vb", "down")
        let noCarrier = try await recorder.wait(after: beforeCarrierLoss) { $0.status == .unreachable }
        #expect(noCarrier.interface(named: "va")?.isUp == true)
        #expect(noCarrier.interface(named: "va")?.isRunning == false)
        await recorder.cancel()
    }

    @Test func ipv6OnlyIsReachable() async throws {
        let ns = try TestNamespace()
        try ns.ipBatch(["link add va type veth peer name vb", "link set vb up", "link set va up"])
        try ns.ip("-6", "addr", "add", "2001:db8:5::2/64", "dev", "va", "nodad")
        let recorder = PathRecorder(try kernelMonitor(ns, overrides: ["va=wifi"]).paths)
        _ = try await recorder.wait { $0.interface(named: "va")?.isRunning == true }
        try ns.ip("-6", "route", "add", "default", "via", "2001:db8:5::1", "dev", "va")
        let path = try await recorder.wait { $0.isReachable }
        #expect(path.status == .wifi)
        #expect(path.ipv6 && !path.ipv4)
        #expect(path.primary?.name == "va")
        await recorder.cancel()
    }

    @Test func overridesMakeOneVethWiFiAndAnotherCellularAndTheStatusFollowsTheRoutes() async throws {
        let ns = try TestNamespace()
        try twoUplinks(ns)
        try ns.ip("route", "add", "default", "via", "10.2.0.1", "dev", "wa", "metric", "100")
        let recorder = PathRecorder(try kernelMonitor(ns, overrides: ["va=wifi", "w?=cellular,expensive"]).paths)
        let cellular = try await recorder.wait { $0.status == .cellular }
        #expect(cellular.isExpensive)
        let wa = try #require(cellular.interface(named: "wa"))
        #expect(wa.type == .cellular)
        #expect(wa.evidence.first?.description.hasPrefix("override=w?=cellular,expensive") == true)
        try ns.ip("route", "add", "default", "via", "10.1.0.1", "dev", "va", "metric", "200")
        try ns.ip("route", "del", "default", "via", "10.2.0.1", "dev", "wa", "metric", "100")
        let wifi = try await recorder.wait { $0.status == .wifi }
        #expect(!wifi.isExpensive)
        await recorder.cancel()
    }

    @Test func theNetlinkThreadEndsWithTheLastSubscriber() async throws {
        let ns = try TestNamespace()
        func watcherThreads() -> Int {
            let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
            return tasks.filter { (try? String(contentsOfFile: "/proc/self/task/\($0)/comm", encoding: .utf8))?.hasPrefix("reach-netlink") == true }.count
        }
        // Monitors of earlier tests stop on a dispatch thread: let them finish first.
        for _ in 0..<1_000 where watcherThreads() != 0 { try await Task.sleep(for: .milliseconds(5)) }
        let before = watcherThreads()
        let monitor = try kernelMonitor(ns)
        let first = PathRecorder(monitor.paths)
        let second = PathRecorder(monitor.paths)
        _ = try await first.wait { _ in true }
        _ = try await second.wait { _ in true }
        #expect(watcherThreads() == before + 1)
        await first.cancel()
        #expect(watcherThreads() == before + 1)
        await second.cancel()
        // A source whose start is still returning is stopped as soon as it has: bounded wait.
        for _ in 0..<1_000 where watcherThreads() != before { try await Task.sleep(for: .milliseconds(5)) }
        #expect(watcherThreads() == before)
    }
}
