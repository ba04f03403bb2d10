import Foundation
import Glibc
import ReachabilityLinux
import ReachabilityTestKit
import Testing

// MARK: Helpers

/// `--probe URL…` with a short timeout, the lease root and the uplinks' roles.
private func probing(_ urls: [String], _ net: PortalNetwork, timeout: String = "2") -> [String] {
    urls.flatMap { ["--probe", $0] } + ["--probe-timeout", timeout, "--dhcp-lease-root", net.leaseRoot] + PortalNetwork.overrides
}

/// Runs `reach ARGS…` in `namespace` to completion; if it runs longer than `bound` it is killed
/// and this throws: every command here must end by itself (no timing is asserted beyond that).
private func reachBounded(_ arguments: [String], in namespace: TestNamespace, bound: Duration = .seconds(10)) async throws -> ReachResult {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let (out, err) = (directory.path + "/stdout", directory.path + "/stderr")
    for path in [out, err] { _ = FileManager.default.createFile(atPath: path, contents: nil) }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/nsenter")
    process.arguments = ["--net=\(namespace.namespace.path)", reachBinary] + arguments
    process.standardInput = FileHandle.nullDevice
    process.standardOutput = FileHandle(forWritingAtPath: out)
    process.standardError = FileHandle(forWritingAtPath: err)
    try process.run()
    let finished = await exited(process, bound: bound)
    if !finished {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }
    let result = ReachResult(
        status: process.terminationStatus, stdout: (try? String(contentsOfFile: out, encoding: .utf8)) ?? "",
        stderr: (try? String(contentsOfFile: err, encoding: .utf8)) ?? "")
    guard finished else {
        throw TestNamespaceError(message: "reach \(arguments.joined(separator: " ")) still ran after \(bound); stdout: \(result.stdout)")
    }
    return result
}

/// `reach status --json` with `urls` probed; the parsed object too.
private func status(_ net: PortalNetwork, _ urls: [String], extra: [String] = []) async throws -> (ReachResult, [String: Any]) {
    let result = try await reachBounded(["status", "--json"] + probing(urls, net) + extra, in: net.client)
    let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
    return (result, try #require(object, "not a JSON object: \(result.stdout) \(result.stderr)"))
}

/// The `validation` object of `uplink` in a path's JSON (nil when null or missing).
private func validation(_ path: [String: Any], _ uplink: PortalNetwork.Uplink) -> [String: Any]? {
    let interfaces = path["interfaces"] as? [[String: Any]] ?? []
    return interfaces.first { $0["name"] as? String == uplink.interface }?["validation"] as? [String: Any]
}

/// The probe records of a `validation` object.
private func records(_ validation: [String: Any]?) -> [[String: Any]] {
    validation?["probes"] as? [[String: Any]] ?? []
}

private func connectivity(_ object: [String: Any]?) -> String? { object?["connectivity"] as? String }

/// Checks an uplink's validation: its connectivity, and that each probe went out of it.
private func expectUplink(
    _ path: [String: Any], _ uplink: PortalNetwork.Uplink, _ expected: String, sourceLocation: SourceLocation = #_sourceLocation
) {
    let found = validation(path, uplink)
    #expect(connectivity(found) == expected, "\(uplink.interface): \(String(describing: found))", sourceLocation: sourceLocation)
    #expect(!records(found).isEmpty, "\(uplink.interface) has no probe records", sourceLocation: sourceLocation)
    for record in records(found) {
        #expect(record["interface"] as? String == uplink.interface, "\(record)", sourceLocation: sourceLocation)
    }
}

/// The JSON objects a stream printed, in order.
private func objects(_ stream: ReachStream) -> [[String: Any]] {
    stream.received.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
}

/// Waits (30 s at most) for a JSON line after the first `after` whose connectivity is `expected`.
private func waitForConnectivity(_ stream: ReachStream, _ expected: String, after: Int = 0) async throws -> [String: Any] {
    let line = try await stream.waitForLine(after: after, bound: .seconds(30)) { line in
        let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        return connectivity(object) == expected
    }
    return try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
}

// MARK: Tests

@Suite("reach --probe against real servers", .enabled(if: PortalNetwork.isSupported), .serialized)
struct ReachConnectivityTests {
    @Test func a204EndpointIsFullByAddressAndByNameThroughTheLeasesDNS() async throws {
        let net = try await PortalNetwork()
        defer { net.stop() }
        let (byAddress, path) = try await status(net, [PortalNetwork.url("/generate_204")])
        #expect(byAddress.status == 0, "\(byAddress.stdout) \(byAddress.stderr)")
        #expect(connectivity(path) == "full")
        #expect(path["portalURL"] is NSNull)
        for uplink in PortalNetwork.Uplink.allCases { expectUplink(path, uplink, "full") }
        let record = try #require(records(validation(path, .wifi)).first)
        #expect(record["kind"] as? String == "http" && record["outcome"] as? String == "success")
        #expect(record["url"] as? String == "http://10.9.0.1/generate_204")
        #expect((record["address"] as? String)?.hasPrefix("10.9.0.1") == true)

        for uplink in PortalNetwork.Uplink.allCases { try net.writeLease(interface: uplink) }
        let byNameURL = "http://\(PortalNetwork.probeHost)/generate_204"
        let (byName, named) = try await status(net, [byNameURL])
        #expect(byName.status == 0, "\(byName.stdout) \(byName.stderr)")
        #expect(connectivity(named) == "full")
        for uplink in PortalNetwork.Uplink.allCases {
            expectUplink(named, uplink, "full")
            // Each uplink resolved through its own gateway's DNS server.
            #expect(net.dnsQueries(on: uplink).contains { $0.contains("probe.test from \(uplink.address)") }, "\(net.dnsQueries(on: uplink))")
        }

        let explained = try await reachBounded(["status", "--explain"] + probing([byNameURL], net), in: net.client)
        #expect(explained.status == 0)
        let lines = explained.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first == "wifi via va (IPv4), connectivity full", "\(lines)")
        #expect(lines.contains("connectivity: full"), "\(lines)")
        #expect(lines.contains { $0.hasPrefix("  va: full") }, "\(lines)")
        #expect(lines.contains { $0.contains("http \(byNameURL) at 10.9.0.1") && $0.contains("success") }, "\(lines)")
    }

    @Test(arguments: [
        ("/portal-302", PortalNetwork.portalLoginURL as String?),
        ("/portal-200", PortalNetwork.portalLoginURL as String?),
        ("/portal-511", nil),
    ])
    func aPortalAnswerIsPortalWithItsURL(_ path: String, _ login: String?) async throws {
        let net = try await PortalNetwork()
        defer { net.stop() }
        let (result, object) = try await status(net, [PortalNetwork.url(path)])
        #expect(result.status == 2, "\(result.stdout) \(result.stderr)")
        #expect(connectivity(object) == "portal")
        for uplink in PortalNetwork.Uplink.allCases { expectUplink(object, uplink, "portal") }
        if let login {
            #expect(object["portalURL"] as? String == login)
            #expect(validation(object, .wifi)?["portalURL"] as? String == login)
            #expect(records(validation(object, .wifi)).first?["portalURL"] as? String == login)
        }
        let human = try await reachBounded(["status"] + probing([PortalNetwork.url(path)], net), in: net.client)
        #expect(human.status == 2)
        #expect(human.stdout.hasPrefix("wifi via va (IPv4), captive portal"), "\(human.stdout)")
    }

    @Test func aRefusedPortAndAStallingServerAreLimitedWithinTheTimeout() async throws {
        let net = try await PortalNetwork()
        defer { net.stop() }
        let (refused, closed) = try await status(net, [PortalNetwork.url("/generate_204", port: PortalNetwork.refusedPort)])
        #expect(refused.status == 2, "\(refused.stdout) \(refused.stderr)")
        #expect(connectivity(closed) == "limited")
        for uplink in PortalNetwork.Uplink.allCases { expectUplink(closed, uplink, "limited") }
        #expect(records(validation(closed, .wifi)).first?["outcome"] as? String == "failure")

        // A server that accepts and never answers: the round ends at the probe timeout (2 s);
        // `reachBounded` fails the test if the command is still running after 10 s.
        let (stalled, silent) = try await status(net, [PortalNetwork.url("/generate_204", port: PortalNetwork.stallPort)])
        #expect(stalled.status == 2, "\(stalled.stdout) \(stalled.stderr)")
        #expect(connectivity(silent) == "limited")
        for uplink in PortalNetwork.Uplink.allCases { expectUplink(silent, uplink, "limited") }
        #expect(net.stalledConnections() >= 2, "both uplinks connected to the stalling server")
    }

    @Test(arguments: [PortalNetwork.DNSMode.refuse, .nxdomain, .absent, .silent])
    func aFailingDNSServerIsLimitedWithADNSDetail(_ mode: PortalNetwork.DNSMode) async throws {
        let net = try await PortalNetwork(dns: mode)
        defer { net.stop() }
        for uplink in PortalNetwork.Uplink.allCases { try net.writeLease(interface: uplink) }
        let (result, object) = try await status(net, ["http://\(PortalNetwork.probeHost)/generate_204"])
        #expect(result.status == 2, "\(result.stdout) \(result.stderr)")
        #expect(connectivity(object) == "limited")
        for uplink in PortalNetwork.Uplink.allCases {
            expectUplink(object, uplink, "limited")
            let detail = records(validation(object, uplink)).first?["detail"] as? String ?? ""
            #expect(detail.contains("DNS"), "\(uplink.interface): \(detail)")
        }
        #expect(net.httpRequests().isEmpty, "\(net.httpRequests())")
    }

    @Test func aHijackingDNSServerLeadsToThePortal() async throws {
        let net = try await PortalNetwork(dns: .hijack)
        defer { net.stop() }
        for uplink in PortalNetwork.Uplink.allCases { try net.writeLease(interface: uplink) }
        let (result, object) = try await status(net, ["http://\(PortalNetwork.probeHost)/generate_204"])
        #expect(result.status == 2, "\(result.stdout) \(result.stderr)")
        #expect(connectivity(object) == "portal")
        #expect(object["portalURL"] as? String == PortalNetwork.portalLoginURL)
        for uplink in PortalNetwork.Uplink.allCases { expectUplink(object, uplink, "portal") }
        #expect((records(validation(object, .wifi)).first?["address"] as? String)?.hasPrefix(PortalNetwork.portalAddress) == true)
        #expect(net.httpRequests().contains { $0.hasPrefix("10.9.0.2:80 ") && $0.contains("/generate_204") }, "\(net.httpRequests())")
    }

    @Test func httpAndHTTPSPassingIsFullAndBlockedHTTPSIsPartial() async throws {
        let net = try await PortalNetwork()
        defer { net.stop() }
        for uplink in PortalNetwork.Uplink.allCases { try net.writeLease(interface: uplink) }
        let urls = ["http://probe.test/generate_204", "https://probe.test/generate_204"]
        let ca = ["--probe-ca-file", net.caFile]
        let (both, full) = try await status(net, urls, extra: ca)
        #expect(both.status == 0, "\(both.stdout) \(both.stderr)")
        #expect(connectivity(full) == "full")
        for uplink in PortalNetwork.Uplink.allCases { expectUplink(full, uplink, "full") }
        let kinds = records(validation(full, .wifi)).map { "\($0["kind"] as? String ?? "?") \($0["outcome"] as? String ?? "?")" }
        #expect(Set(kinds) == ["http success", "https success"], "\(kinds)")
        #expect(net.httpRequests().contains { $0.hasPrefix("10.9.0.1:443 ") }, "\(net.httpRequests())")

        try net.inject(.httpsBlocked(.wifi))
        let (blocked, partial) = try await status(net, urls, extra: ca)
        #expect(blocked.status == 2, "\(blocked.stdout) \(blocked.stderr)")
        #expect(connectivity(partial) == "partial")
        expectUplink(partial, .wifi, "partial")
        expectUplink(partial, .cellular, "full")
        let https = records(validation(partial, .wifi)).first { $0["kind"] as? String == "https" }
        #expect(https?["outcome"] as? String == "failure", "\(String(describing: https))")
    }

    @Test func eachUplinkIsProbedOutOfItselfAndThePrimaryDecidesThePath() async throws {
        let net = try await PortalNetwork()
        defer { net.stop() }
        try net.inject(.noInternet(.cellular))
        let urls = [PortalNetwork.url("/generate_204")]
        let (wifiFirst, path) = try await status(net, urls)
        #expect(wifiFirst.status == 0, "\(wifiFirst.stdout) \(wifiFirst.stderr)")
        #expect(connectivity(path) == "full")
        expectUplink(path, .wifi, "full")
        expectUplink(path, .cellular, "limited")
        // nginx saw the probe from va's address only: wa's was stopped in the router.
        #expect(net.httpRequests().allSatisfy { $0.contains(" 10.1.0.2 ") }, "\(net.httpRequests())")

        // Cellular becomes the primary (Wi-Fi's default route now costs more): the path is limited.
        try net.removeDefaultRoute(via: .wifi, metric: 100)
        try net.addDefaultRoute(via: .wifi, metric: 300)
        let (cellularFirst, moved) = try await status(net, urls)
        #expect(cellularFirst.status == 2, "\(cellularFirst.stdout) \(cellularFirst.stderr)")
        #expect((moved["primary"] as? [String: Any])?["name"] as? String == "wa")
        #expect(connectivity(moved) == "limited")
        expectUplink(moved, .wifi, "full")
        expectUplink(moved, .cellular, "limited")
    }

    @Test func theCaptivePortalAPIFromTheLeaseOverridesAPassingProbe() async throws {
        let net = try await PortalNetwork()
        defer { net.stop() }
        let api = "http://\(PortalNetwork.portalAddress):\(PortalNetwork.apiPort)"
        try net.writeLease(interface: .wifi, captivePortal: api + "/capport")
        try net.writeLease(interface: .cellular, captivePortal: api + "/capport-open")
        let (result, object) = try await status(net, [PortalNetwork.url("/generate_204")])
        #expect(result.status == 2, "\(result.stdout) \(result.stderr)")
        #expect(connectivity(object) == "portal")
        #expect(object["portalURL"] as? String == PortalNetwork.portalLoginURL)
        expectUplink(object, .wifi, "portal")
        let wifi = records(validation(object, .wifi)).map { "\($0["kind"] as? String ?? "?") \($0["outcome"] as? String ?? "?")" }
        #expect(Set(wifi) == ["capport portal", "http success"], "\(wifi)")
        // "Not captive" proves nothing by itself; the passing probe makes it full.
        expectUplink(object, .cellular, "full")
        let cellular = records(validation(object, .cellular)).map { "\($0["kind"] as? String ?? "?") \($0["outcome"] as? String ?? "?")" }
        #expect(Set(cellular) == ["capport notCaptive", "http success"], "\(cellular)")
        for uplink in PortalNetwork.Uplink.allCases {
            #expect(net.httpRequests().contains { $0.hasPrefix("10.9.0.2:8908 \(uplink.address) ") }, "\(net.httpRequests())")
        }
    }

    @Test func waitForInternetNeedsFullConnectivity() async throws {
        let net = try await PortalNetwork()
        defer { net.stop() }
        let full = try await reachBounded(
            ["wait", "--for", "internet", "--timeout", "5"] + probing([PortalNetwork.url("/generate_204")], net), in: net.client,
            bound: .seconds(20))
        #expect(full.status == 0, "\(full.stdout) \(full.stderr)")

        let portal = try await reachBounded(
            ["wait", "--for", "internet", "--timeout", "5"] + probing([PortalNetwork.url("/portal-302")], net), in: net.client,
            bound: .seconds(20))
        #expect(portal.status == 1, "\(portal.stdout) \(portal.stderr)")
        #expect(portal.stderr.contains("timed out"), "\(portal.stderr)")

        let before = net.probeTraffic
        let unprobed = try await reachBounded(["wait", "--for", "internet", "--timeout", "5"] + PortalNetwork.overrides, in: net.client)
        #expect(unprobed.status == 64)
        #expect(unprobed.stderr.contains("--for internet needs a probe"), "\(unprobed.stderr)")
        #expect(net.probeTraffic == before)
    }

    @Test func watchPrintsALineWhenConnectivityChanges() async throws {
        let net = try await PortalNetwork()
        defer { net.stop() }
        try net.writeLease(interface: .wifi)
        try net.writeLease(interface: .cellular)
        let watch = try ReachStream(["watch", "--json"] + probing(["http://probe.test/generate_204"], net), in: net.client)
        defer { watch.kill() }
        let first = try await waitForConnectivity(watch, "full")
        #expect(validation(first, .wifi) != nil)

        // The Wi-Fi's DNS now hijacks to the portal, and the uplink joins a new network (one more
        // address): it is probed again at once.
        let seen = watch.received.count
        try net.setDNS(.hijack, on: .wifi)
        try net.client.ip("addr", "add", "10.1.0.3/24", "dev", "va")
        let portal = try await waitForConnectivity(watch, "portal", after: seen)
        #expect(portal["portalURL"] as? String == PortalNetwork.portalLoginURL)

        // Logged in (the DNS answers again): a retry (from 1 s, doubling) finds the Internet.
        let behindPortal = watch.received.count
        try net.setDNS(.answer, on: .wifi)
        let back = try await waitForConnectivity(watch, "full", after: behindPortal)
        #expect(back["portalURL"] is NSNull)
    }

    @Test func withoutProbingNothingIsSent() async throws {
        let net = try await PortalNetwork()
        defer { net.stop() }
        let api = "http://\(PortalNetwork.portalAddress):\(PortalNetwork.apiPort)/capport"
        for uplink in PortalNetwork.Uplink.allCases { try net.writeLease(interface: uplink, captivePortal: api) }
        let options = ["--dhcp-lease-root", net.leaseRoot] + PortalNetwork.overrides
        let shown = try await reachBounded(["status", "--json"] + options, in: net.client)
        #expect(shown.status == 0, "\(shown.stdout) \(shown.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(shown.stdout.utf8)) as? [String: Any])
        #expect(connectivity(object) == "unknown")
        #expect(object["portalURL"] is NSNull)
        for interface in object["interfaces"] as? [[String: Any]] ?? [] {
            #expect(interface["validation"] is NSNull, "\(interface)")
        }

        let watch = try ReachStream(["watch", "--json"] + options, in: net.client)
        defer { watch.kill() }
        let line = try await watch.waitForLine { _ in true }
        #expect(line.contains("\"connectivity\":\"unknown\""))
        try await Task.sleep(for: .seconds(2))
        watch.kill()
        let wait = try await reachBounded(["wait", "--for", "any", "--timeout", "5"] + options, in: net.client)
        #expect(wait.status == 0, "\(wait.stdout) \(wait.stderr)")

        #expect(net.httpRequests().isEmpty, "\(net.httpRequests())")
        #expect(net.dnsQueries(on: .wifi).isEmpty && net.dnsQueries(on: .cellular).isEmpty)
        #expect(net.probeTraffic == 0)
    }

    @Test(arguments: [["status"], ["wait", "--for", "any"], ["get", "-o", "/tmp/reach-never-written", "http://10.9.0.1/file"]])
    func aProbeURLThatIsNotHTTPExits64(_ command: [String]) async throws {
        let net = try await PortalNetwork()
        defer { net.stop() }
        let result = try await reachBounded(command + ["--probe", "ftp://x"] + PortalNetwork.overrides, in: net.client)
        #expect(result.status == 64)
        #expect(result.stderr.contains("--probe ftp://x: not an http:// or https:// URL"), "\(result.stderr)")
        #expect(result.stdout.isEmpty)
        #expect(net.probeTraffic == 0)
    }

    @Test func anUnresolvableProbeNameIsLimitedWithinTheTimeout() async throws {
        let net = try await PortalNetwork(dns: .silent)
        defer { net.stop() }
        for uplink in PortalNetwork.Uplink.allCases { try net.writeLease(interface: uplink) }
        let (result, object) = try await status(net, ["http://no-such-name.test/"])
        #expect(result.status == 2, "\(result.stdout) \(result.stderr)")
        #expect(connectivity(object) == "limited")
        for uplink in PortalNetwork.Uplink.allCases {
            expectUplink(object, uplink, "limited")
            let detail = records(validation(object, uplink)).first?["detail"] as? String ?? ""
            #expect(detail.contains("DNS"), "\(detail)")
        }
    }
}

@Suite("reach get --probe against real servers", .enabled(if: PortalNetwork.isSupported), .serialized)
struct ReachConnectivityGetTests {
    /// Behind a portal (the probe is redirected) and without the Internet (the probe's port is
    /// refused) the file, which the server would serve, is not asked for.
    @Test(arguments: [
        (PortalNetwork.url("/portal-302"), "captivePortal"),
        (PortalNetwork.url("/generate_204", port: PortalNetwork.refusedPort), "noInternet"),
    ])
    func aGatedDownloadWaitsInsteadOfFetchingThePortalPage(_ probe: String, _ reason: String) async throws {
        let net = try await PortalNetwork()
        defer { net.stop() }
        let files = try TemporaryDirectory()
        defer { files.remove() }
        let output = files.path + "/file"
        let get = try ReachStream(["get", "--json", "-o", output, "http://10.9.0.1/file"] + probing([probe], net), in: net.client)
        defer { get.kill() }
        // (It may first wait with `checkingInternet`, until the first probes answer.)
        let waiting = try await get.waitForLine(bound: .seconds(30)) { $0.contains("\"reason\":\"\(reason)\"") }
        #expect(waiting.contains("\"event\":\"waiting\""), "\(waiting)")
        #expect(!get.received.contains { $0.contains("\"event\":\"started\"") }, "\(get.received)")
        if reason == "captivePortal" { #expect(waiting.contains(PortalNetwork.portalLoginURL), "\(waiting)") }
        // It keeps waiting: nothing asked for the file, nothing written.
        try await Task.sleep(for: .seconds(1))
        get.kill()
        #expect(!net.httpRequests().contains { $0.contains("/file") }, "\(net.httpRequests())")
        #expect(!FileManager.default.fileExists(atPath: output))
        let leftovers = (try? FileManager.default.contentsOfDirectory(atPath: files.path)) ?? []
        for name in leftovers {
            let text = (try? String(contentsOfFile: files.path + "/" + name, encoding: .utf8)) ?? ""
            #expect(!text.contains("Portal login") && !text.contains("refresh"), "\(name): \(text)")
        }
    }

    @Test func aGatedDownloadRunsWhenTheProbePasses() async throws {
        let net = try await PortalNetwork()
        defer { net.stop() }
        let files = try TemporaryDirectory()
        defer { files.remove() }
        let output = files.path + "/file"
        let result = try await reachBounded(
            ["get", "-o", output, "http://10.9.0.1/file"] + probing([PortalNetwork.url("/generate_204")], net), in: net.client,
            bound: .seconds(30))
        #expect(result.status == 0, "\(result.stdout) \(result.stderr)")
        #expect((try? String(contentsOfFile: output, encoding: .utf8)) == PortalNetwork.fileContents)
    }
}
