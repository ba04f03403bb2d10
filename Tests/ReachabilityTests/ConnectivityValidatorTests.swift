import Reachability
import ReachabilityCore
import ReachabilityTestKit
import Synchronization
import Testing

private let running: LinkFlags = [.up, .lowerUp, .running]

/// `wifi0` (index 2) carries the default route; `cell0` (index 3) has one too, at a higher metric.
private func twoUplinks(wifiAddress: String = "192.0.2.2", lease: DHCPHints? = nil) -> NetworkSnapshot {
    NetworkSnapshot(
        interfaces: [
            InterfaceFacts(name: "wifi0", index: 2, flags: running, hardwareType: 1, kind: "veth", dhcpHints: lease),
            InterfaceFacts(name: "cell0", index: 3, flags: running, hardwareType: 1, kind: "veth"),
        ],
        addresses: [
            InterfaceAddress(interfaceIndex: 2, family: .ipv4, address: wifiAddress, prefixLength: 24),
            InterfaceAddress(interfaceIndex: 3, family: .ipv4, address: "198.51.100.2", prefixLength: 24),
        ],
        defaultRoutes: [
            DefaultRoute(family: .ipv4, interfaceIndex: 2, metric: 100, gateway: "192.0.2.1"),
            DefaultRoute(family: .ipv4, interfaceIndex: 3, metric: 200, gateway: "198.51.100.1"),
        ])
}

/// Answers each interface with the outcome set for it; counts rounds; can hold rounds until released.
private final class ScriptedProber: ConnectivityProber {
    private let state = Mutex<(outcomes: [String: ProbeRecord.Outcome], rounds: [String: Int], targets: [ProbeTarget])>(([:], [:], []))

    func set(_ interface: String, _ outcome: ProbeRecord.Outcome) { state.withLock { $0.outcomes[interface] = outcome } }
    func rounds(_ interface: String) -> Int { state.withLock { $0.rounds[interface, default: 0] } }
    var targets: [ProbeTarget] { state.withLock { $0.targets } }

    func probe(_ target: ProbeTarget, validation: ConnectivityValidation) async -> [ProbeRecord] {
        let outcome = state.withLock { state -> ProbeRecord.Outcome in
            state.rounds[target.interface, default: 0] += 1
            state.targets.append(target)
            return state.outcomes[target.interface] ?? .success
        }
        return validation.endpoints.map { endpoint in
            ProbeRecord(
                url: endpoint.url, kind: endpoint.isHTTPS ? .https : .http, interface: target.interface, startedAt: 0,
                milliseconds: 1, outcome: outcome, portalURL: outcome == .portal ? "http://portal.test/login" : nil,
                detail: outcome == .success ? "204 No Content" : "scripted \(outcome)")
        }
    }
}

private func monitor(_ source: FakeNetworkSource, _ prober: ScriptedProber, retry: Duration = .seconds(600)) throws -> NetworkMonitor {
    let validation = ConnectivityValidation(
        endpoints: [try ProbeEndpoint(parsing: "http://probe.test/generate_204")], initialRetry: retry, maximumRetry: retry)
    let configuration = MonitorConfiguration(
        overrides: [try OverrideRule(parsing: "wifi0=wifi"), try OverrideRule(parsing: "cell0=cellular")], validation: validation)
    return NetworkMonitor(source: source, configuration: configuration, clock: ContinuousClock(), prober: prober)
}

@Suite("Connectivity validation in the monitor")
struct ConnectivityValidatorTests {
    @Test func everyUplinkIsProbedOnItsOwnAndThePathTakesThePrimarysAnswer() async throws {
        let prober = ScriptedProber()
        prober.set("cell0", .failure)
        let lease = DHCPHints(androidMetered: false, leaseFile: "/x", dnsServers: ["192.0.2.53"], captivePortalURL: "https://portal.test/api")
        let source = FakeNetworkSource(initial: twoUplinks(lease: lease))
        let recorder = PathRecorder(try monitor(source, prober).paths)
        let path = try await recorder.wait { $0.interfaces.allSatisfy { $0.validation?.probes.isEmpty == false } }
        #expect(path.connectivity == .full)
        #expect(path.interface(named: "wifi0")?.validation?.connectivity == .full)
        #expect(path.interface(named: "cell0")?.validation?.connectivity == .limited)
        let wifiTarget = try #require(prober.targets.first { $0.interface == "wifi0" })
        #expect(wifiTarget.dnsServers == ["192.0.2.53"])
        #expect(wifiTarget.captivePortalAPI == "https://portal.test/api")
        #expect(wifiTarget.ipv4 && !wifiTarget.ipv6)
    }

    @Test func theFirstPathSaysCheckingUntilTheProbesAnswer() async throws {
        let source = FakeNetworkSource(initial: twoUplinks())
        let recorder = PathRecorder(try monitor(source, ScriptedProber()).paths)
        let first = try await recorder.wait { _ in true }
        // Published before any probe answered: pending, never a guess.
        if first.interface(named: "wifi0")?.validation?.probes.isEmpty ?? true {
            #expect(first.connectivity == .unknown)
            #expect(TransferPolicy.any.decide(first) == .wait(.checkingInternet))
        }
        let validated = try await recorder.wait { $0.connectivity == .full }
        #expect(TransferPolicy.any.decide(validated) == .allow)
    }

    @Test func aPortalHoldsTransfersAndANewNetworkIsProbedAtOnce() async throws {
        let prober = ScriptedProber()
        prober.set("wifi0", .portal)
        let source = FakeNetworkSource(initial: twoUplinks())
        let recorder = PathRecorder(try monitor(source, prober).paths)
        let portal = try await recorder.wait { $0.connectivity == .portal }
        #expect(portal.portalURL == "http://portal.test/login")
        #expect(TransferPolicy.any.decide(portal) == .wait(.captivePortal(url: "http://portal.test/login")))
        #expect(prober.rounds("wifi0") == 1)
        // Another address on wifi0: another network, probed again at once (the retry is 10 min).
        prober.set("wifi0", .success)
        source.send(twoUplinks(wifiAddress: "192.0.2.77"))
        let full = try await recorder.wait { $0.connectivity == .full }
        #expect(full.portalURL == nil)
        #expect(prober.rounds("wifi0") == 2)
    }

    @Test func withoutAProberOrAProbeNothingIsSentAndTheAnswerIsUnknown() async throws {
        let source = FakeNetworkSource(initial: twoUplinks())
        let configuration = MonitorConfiguration(validation: ConnectivityValidation(endpoints: []))
        let prober = ScriptedProber()
        let monitor = NetworkMonitor(source: source, configuration: configuration, clock: ContinuousClock(), prober: prober)
        #expect(!monitor.isValidating)
        let path = try await PathRecorder(monitor.paths).wait { _ in true }
        #expect(path.connectivity == .unknown)
        #expect(path.interfaces.allSatisfy { $0.validation == nil })
        #expect(TransferPolicy.any.decide(path) == .allow)
        let validated = try await monitor.validatedPath()
        #expect(validated.connectivity == .unknown)
        #expect(prober.rounds("wifi0") == 0 && prober.rounds("cell0") == 0)
    }

    @Test func validatedPathProbesEveryUplinkOnce() async throws {
        let prober = ScriptedProber()
        prober.set("wifi0", .portal)
        let monitor = try monitor(FakeNetworkSource(initial: twoUplinks()), prober)
        let path = try await monitor.validatedPath()
        #expect(path.connectivity == .portal)
        #expect(prober.rounds("wifi0") == 1 && prober.rounds("cell0") == 1)
    }

    @Test func aFailedRoundIsRetriedWithBackoff() async throws {
        let prober = ScriptedProber()
        prober.set("wifi0", .failure)
        let source = FakeNetworkSource(initial: twoUplinks())
        let recorder = PathRecorder(try monitor(source, prober, retry: .milliseconds(50)).paths)
        _ = try await recorder.wait { $0.connectivity == .limited }
        prober.set("wifi0", .success)
        let full = try await recorder.wait { $0.connectivity == .full }
        #expect(full.interface(named: "wifi0")?.validation?.probes.first?.detail == "204 No Content")
        #expect(prober.rounds("wifi0") >= 2)
    }
}
