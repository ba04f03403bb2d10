import ReachabilityCore
import ReachabilityTestKit
import ReachabilityValidation
import Testing

/// A validation of these URLs (parsed here: a typo is the test's bug, and fails it).
private func validation(_ urls: [String], timeout: Duration = .seconds(3), caFile: String? = nil) throws -> ConnectivityValidation {
    ConnectivityValidation(endpoints: try urls.map { try ProbeEndpoint(parsing: $0) }, timeout: timeout, caFile: caFile)
}

/// The real prober against real servers in a private pair of namespaces (see ``ProbeTestNetwork``).
@Suite("HTTP connectivity prober against real servers", .enabled(if: ProbeTestServers.isSupported), .serialized)
struct HTTPConnectivityProberTests {
    @Test("a clear network's answer, portal answers and failures are told apart, in endpoint order")
    func answersAreClassified() async throws {
        let network = try ProbeTestNetwork()
        let servers = try ProbeTestServers(network: network)
        defer { servers.stop() }
        let urls = [
            "http://10.77.0.1/generate_204", "http://10.77.0.1/redirect", "http://10.77.0.1/auth", "http://10.77.0.1/page",
            "https://10.77.0.1:8443/generate_204", "https://10.77.0.1:8444/generate_204", "http://10.77.0.1:9/generate_204",
            "http://10.77.0.1:9002/generate_204", "http://10.77.0.1/big", "http://[fd00:77::1]/generate_204",
        ]
        let records = await HTTPConnectivityProber().probe(
            try network.target(ipv6: true), validation: try validation(urls, caFile: servers.caFile))
        try #require(records.count == urls.count, "\(records)")
        #expect(records.map(\.url) == urls)
        #expect(records.map(\.kind) == [.http, .http, .http, .http, .https, .https, .http, .http, .http, .http])
        #expect(records.allSatisfy { $0.interface == "up0" })
        #expect(records[0].outcome == .success, "\(records[0])")
        #expect(records[0].address == "10.77.0.1:80")
        #expect(records[1].outcome == .portal, "\(records[1])")
        #expect(records[1].portalURL == ProbeTestConfiguration.loginURL)
        #expect(records[2].outcome == .portal, "\(records[2])")
        #expect(records[3].outcome == .portal, "\(records[3])")
        #expect(records[4].outcome == .success, "\(records[4])")
        #expect(records[4].address == "10.77.0.1:8443")
        #expect(records[5].outcome == .failure)
        #expect(records[5].detail.hasPrefix("TLS: certificate verify failed"), "\(records[5].detail)")
        #expect(records[6].outcome == .failure)
        #expect(records[6].detail == "connection refused")
        #expect(records[6].address == "10.77.0.1:9")
        #expect(records[7].outcome == .failure)
        #expect(records[7].detail == "answer is not HTTP")
        // A 1 MiB page is read only as far as the probe needs, and is not a clear network.
        #expect(records[8].outcome != .success)
        #expect(!records[8].detail.hasPrefix("timed out"), "\(records[8].detail)")
        #expect(records[9].outcome == .success, "\(records[9])")
        #expect(records[9].address == "[fd00:77::1]:80")
        #expect(records.allSatisfy { $0.startedAt > 1_600_000_000_000 && $0.milliseconds >= 0 })
    }

    @Test("without the test CA the trusted server's certificate fails verification too")
    func theCAFileIsWhatTrustsThePrivateServer() async throws {
        let network = try ProbeTestNetwork()
        let servers = try ProbeTestServers(network: network)
        defer { servers.stop() }
        let records = await HTTPConnectivityProber().probe(
            try network.target(), validation: try validation(["https://10.77.0.1:8443/generate_204"]))
        #expect(records.map(\.outcome) == [.failure])
        #expect(records.first?.detail.hasPrefix("TLS: certificate verify failed") == true, "\(records)")
    }

    @Test("the RFC 8908 API: captive with its portal URL, not captive, and answers that are not the API's")
    func captivePortalAPI() async throws {
        let network = try ProbeTestNetwork()
        let servers = try ProbeTestServers(network: network)
        defer { servers.stop() }
        let prober = HTTPConnectivityProber()
        let plain = try validation(["http://10.77.0.1/generate_204"], caFile: servers.caFile)
        func api(_ url: String) async throws -> ProbeRecord? {
            let records = await prober.probe(try network.target(captivePortalAPI: url), validation: plain)
            #expect(records.count == 2)
            #expect(records.first?.outcome == .success)
            #expect(records.last?.kind == .captivePortalAPI)
            return records.last
        }
        let captive = try await api("http://10.77.0.1/api-captive")
        #expect(captive?.outcome == .portal, "\(String(describing: captive))")
        #expect(captive?.portalURL == "https://10.77.0.1:8443/portal")
        let overTLS = try await api("https://10.77.0.1:8443/api-captive")
        #expect(overTLS?.outcome == .portal, "\(String(describing: overTLS))")
        let open = try await api("http://10.77.0.1/api-open")
        #expect(open?.outcome == .notCaptive, "\(String(describing: open))")
        #expect(open?.portalURL == nil)
        for url in ["http://10.77.0.1/api-html", "http://10.77.0.1/api-missing", "http://10.77.0.1:9/", "not a url"] {
            let record = try await api(url)
            #expect(record?.outcome == .failure, "\(url): \(String(describing: record))")
        }
    }

    @Test("a server that never answers, and an address nobody has, end the round at its timeout")
    func stalledProbesTimeOut() async throws {
        let network = try ProbeTestNetwork()
        let servers = try ProbeTestServers(network: network)
        defer { servers.stop() }
        let start = ContinuousClock.now
        let records = await HTTPConnectivityProber().probe(
            try network.target(),
            validation: try validation(
                ["http://10.77.0.1:9001/", "https://10.77.0.1:9001/", "http://10.77.0.99/", "http://10.77.0.1/generate_204"],
                timeout: .seconds(1)))
        // Loose: the round returned, in about its timeout rather than the kernel's minutes.
        #expect(ContinuousClock.now - start < .seconds(10))
        #expect(records.map(\.outcome) == [.failure, .failure, .failure, .success], "\(records)")
        for record in records.prefix(3) {
            #expect(record.detail.hasPrefix("timed out after 1.0 s"), "\(record.detail)")
        }
        #expect(records[0].detail.contains("waiting for the answer"))
        #expect(records[1].detail.contains("TLS handshake"))
        #expect(records[2].detail.contains("connecting to 10.77.0.99:80"))
    }

    @Test("cancelling the round ends a probe that is waiting for an answer")
    func cancellingEndsTheRound() async throws {
        let network = try ProbeTestNetwork()
        let servers = try ProbeTestServers(network: network)
        defer { servers.stop() }
        let target = try network.target()
        let probe = try validation(["http://10.77.0.1:9001/"], timeout: .seconds(60))
        let start = ContinuousClock.now
        let round = Task { await HTTPConnectivityProber().probe(target, validation: probe) }
        try await Task.sleep(for: .milliseconds(300))
        round.cancel()
        let records = await round.value
        #expect(ContinuousClock.now - start < .seconds(30))
        #expect(records.map(\.outcome) == [.failure])
        #expect(records.first?.detail == "cancelled", "\(records)")
    }

    @Test("a probe leaves through the interface its target names, and only that one")
    func probesAreBoundToTheInterface() async throws {
        let network = try ProbeTestNetwork()
        let servers = try ProbeTestServers(network: network)
        defer { servers.stop() }
        let prober = HTTPConnectivityProber()
        // Short: bound to side0, the kernel takes the server for on-link there and asks ARP in vain.
        let probe = try validation(["http://10.77.0.1/generate_204"], timeout: .seconds(1))
        let right = await prober.probe(try network.target("up0"), validation: probe)
        #expect(right.map(\.outcome) == [.success], "\(right)")
        // The default route leaves by up0: only the binding keeps this probe on side0.
        let wrong = await prober.probe(try network.target("side0"), validation: probe)
        #expect(wrong.map(\.outcome) == [.failure], "\(wrong)")
        #expect(wrong.first?.interface == "side0")
        let missing = await prober.probe(try network.target("nope0"), validation: probe)
        #expect(missing.map(\.outcome) == [.failure])
        #expect(missing.first?.detail.contains("SO_BINDTODEVICE nope0") == true, "\(missing)")
    }

    @Test("a host name is resolved through the target's DNS servers; none answering is a DNS failure")
    func namesGoThroughTheTargetsServers() async throws {
        let network = try ProbeTestNetwork()
        let records = await HTTPConnectivityProber().probe(
            try network.target(dnsServers: ["10.77.0.1"]),
            validation: try validation(["http://probe.reach.test/generate_204"], timeout: .seconds(1)))
        #expect(records.map(\.outcome) == [.failure])
        #expect(records.first?.detail.hasPrefix("DNS") == true, "\(records)")
        #expect(records.first?.address == nil)
    }

    @Test("a namespace that cannot be entered fails every probe of the round, with the reason")
    func aMissingNamespaceFailsTheRound() async throws {
        let target = ProbeTarget(
            interface: "up0", index: 2, ipv4: true, ipv6: false, captivePortalAPI: "https://10.77.0.1/api",
            namespacePath: "/nonexistent/reach-netns")
        let records = await HTTPConnectivityProber().probe(target, validation: try validation(["http://10.77.0.1/generate_204"]))
        #expect(records.map(\.kind) == [.http, .captivePortalAPI])
        #expect(records.allSatisfy { $0.outcome == .failure && $0.detail.contains("namespace") })
    }
}
