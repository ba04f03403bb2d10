import Foundation
import Glibc
import ReachabilityCore
import ReachabilityTestKit
import Testing

@Suite("reach: usage errors")
struct ReachUsageErrorTests {
    struct BadInvocation: CustomTestStringConvertible, Sendable {
        var arguments: [String]
        var mentions: String
        var testDescription: String { arguments.joined(separator: " ") }
    }

    static let invocations: [BadInvocation] = [
        BadInvocation(arguments: ["status", "--override", "nonsense"], mentions: "invalid override 'nonsense'"),
        BadInvocation(arguments: ["status", "--override", "eth*=satellite"], mentions: "unknown type 'satellite'"),
        BadInvocation(arguments: ["status", "--override", "wl[an=wifi"], mentions: "unclosed '['"),
        BadInvocation(arguments: ["status", "--override", "=wifi"], mentions: "empty interface pattern"),
        BadInvocation(arguments: ["status", "--override", "eth0=wifi,cellular"], mentions: "type given twice"),
        BadInvocation(arguments: ["watch", "--debounce=-5"], mentions: "--debounce must be from 0 to 3600000 milliseconds, not -5"),
        BadInvocation(arguments: ["wait", "--timeout", "inf"], mentions: "--timeout must be a number of seconds from 0 to 1000000000, not inf"),
        BadInvocation(arguments: ["wait", "--timeout", "1e30"], mentions: "--timeout must be a number of seconds"),
        BadInvocation(arguments: ["wait", "--timeout", "nan"], mentions: "--timeout must be a number of seconds"),
        BadInvocation(arguments: ["run", "--settle", "inf", "--", "true"], mentions: "--settle must be a number of seconds"),
        BadInvocation(arguments: ["run", "--settle=-1", "--", "true"], mentions: "--settle must be a number of seconds"),
        BadInvocation(arguments: ["run", "--kill-after=-1", "--", "true"], mentions: "--kill-after must be a number of seconds from 0 to 1000000000, not -1.0"),
        BadInvocation(arguments: ["run", "--kill-after", "inf", "--", "true"], mentions: "--kill-after must be a number of seconds"),
        BadInvocation(arguments: ["run", "--on-disallow", "pause", "--", "true"], mentions: "pause"),
        BadInvocation(arguments: ["watch", "--debounce", "99999999999"], mentions: "--debounce"),
        BadInvocation(arguments: ["status", "--config", "/dev/zero"], mentions: "/dev/zero: cannot read: not a regular file"),
        BadInvocation(arguments: ["status", "--netns", "../x"], mentions: "--netns takes a namespace name"),
        BadInvocation(arguments: ["status", "--config", "/nonexistent/reach.conf"], mentions: "/nonexistent/reach.conf: cannot read"),
        BadInvocation(arguments: ["status", "--netns", "reach-no-such-namespace"], mentions: "--netns reach-no-such-namespace: no such namespace"),
        BadInvocation(arguments: ["interfaces", "--offline", "--sysfs-root", "/nonexistent/sys"], mentions: "/nonexistent/sys/class/net"),
        BadInvocation(arguments: ["frobnicate"], mentions: "frobnicate"),
        // `reach get` runs in reach-daemon: its usage errors come back through the exec.
        BadInvocation(arguments: ["get", "--ca-file", "/nonexistent/ca.pem", "http://127.0.0.1:9/x"], mentions: "--ca-file /nonexistent/ca.pem: No such file or directory"),
        BadInvocation(arguments: ["get", "--ca-file", "/etc/passwd", "https://127.0.0.1:9/x"], mentions: "--ca-file /etc/passwd: no PEM certificate"),
        BadInvocation(arguments: ["get", "http://127.0.0.1:99999/x"], mentions: "not a valid port in 'http://127.0.0.1:99999/x'"),
        BadInvocation(arguments: ["get", "--settle", "inf", "http://127.0.0.1:9/x"], mentions: "--settle must be a number of seconds"),
        BadInvocation(arguments: ["get", "--per-host", "0", "http://127.0.0.1:9/x"], mentions: "--per-host must be from 1 to 64"),
    ]

    @Test(arguments: invocations)
    func exits64WithTheOffendingText(_ invocation: BadInvocation) throws {
        let result = try reach(invocation.arguments)
        #expect(result.status == 64)
        #expect(result.stderr.contains(invocation.mentions))
        #expect(result.stdout.isEmpty)
    }

    /// Inputs that once allocated without bound or hung: each is a one-line error, exit 64.
    @Test func aConfigurationThatIsNoRegularFileOrTooLargeIsRefusedAtOnce() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let fifo = directory.path + "/fifo.conf"
        #expect(mkfifo(fifo, 0o600) == 0)
        let big = directory.path + "/big.conf"
        try String(repeating: "# padding\n", count: 120_000).write(toFile: big, atomically: false, encoding: .utf8)
        let link = directory.path + "/zero.conf"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "/dev/zero")
        for (path, reason) in [(fifo, "not a regular file"), (big, "larger than 1048576 bytes"), (link, "not a regular file")] {
            let result = try reach(["status", "--config", path])
            #expect(result.status == 64, "\(path)")
            #expect(result.stderr == "reach: \(path): cannot read: \(reason)\n")
        }
    }

    /// A UTF-8 byte-order mark (Windows editors write one) is not part of the first rule.
    @Test func aByteOrderMarkIsAccepted() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = directory.path + "/bom.conf"
        try "\u{FEFF}lo = wifi, expensive\n".write(toFile: file, atomically: false, encoding: .utf8)
        let check = try reach(["config", "check", file])
        #expect(check.status == 0)
        #expect(check.stdout == "\(file): 1 rule, valid\n")
        let listed = try reach(["interfaces", "--json", "--config", file])
        #expect(listed.status == 0)
        let interfaces = try JSONDecoder().decode([Interface].self, from: Data(listed.stdout.utf8))
        let loopback = try #require(interfaces.first { $0.name == "lo" })
        #expect(loopback.type == .wifi && loopback.isExpensive)
    }

    /// Output that cannot be written is a failure, not silence.
    @Test func aFullStandardOutputExitsOne() throws {
        let result = try shell("\(reachBinary) status --override 'lo=wired' > /dev/full; echo \"exit=$?\"")
        #expect(result.stdout.hasSuffix("exit=1\n"))
        #expect(result.stderr.contains("reach: cannot write to standard output: No space left on device"))
    }

    /// A reader that went away ends reach quietly (killed by SIGPIPE, or 0 on EPIPE).
    @Test func aClosedPipeEndsQuietly() throws {
        let result = try shell("set -o pipefail; \(reachBinary) interfaces --explain | (exec 0<&-; true); echo \"exit=$?\"")
        #expect(result.stdout == "exit=0\n" || result.stdout == "exit=141\n", "\(result.stdout)")
        #expect(result.stderr.isEmpty)
    }

    /// An address of this host is local: usable, exit 0, not "unusable".
    @Test func localDestinationsAreLocal() throws {
        let result = try reach(["status", "--to", "127.0.0.1"])
        #expect(result.status == 0)
        #expect(result.stdout == "127.0.0.1: local (an address of this host, via lo)\n")
        let json = try reach(["status", "--to", "127.0.0.1", "--json"])
        let routes = try JSONDecoder().decode([DestinationRoute].self, from: Data(json.stdout.utf8))
        #expect(routes.count == 1 && routes[0].isLocal && routes[0].isUsable)
    }

    /// The package version and the libnl the binary runs against, from both executables.
    @Test func versionNamesTheLibnlInUse() throws {
        for arguments in [["--version"], ["get", "--version"]] {
            let result = try reach(arguments)
            #expect(result.status == 0)
            let pattern = /[0-9]+\.[0-9]+\.[0-9]+ \(libnl [0-9]+\.[0-9]+\.[0-9]+\)\n/
            #expect(result.stdout.wholeMatch(of: pattern) != nil, "\(arguments): \(result.stdout)")
        }
    }

    /// `reach run` captures its command as typed: `--help` first is still a request for help,
    /// and the help documents the exit codes.
    @Test func runHelpIsHelpNotACommand() throws {
        let result = try reach(["run", "--help"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("--kill-after <SECONDS>"))
        let words = result.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(words.contains("Exit codes: the command's status, or 128 + N if signal N ended it; 127 the command could not be started"))
    }

    @Test func aBadConfigurationLineIsReportedWithItsNumber() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("reach-\(UUID()).conf")
        try "# uplinks\nwlan* = wifi\n\nwwan0 = cellular, cheap\n".write(to: file, atomically: false, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let result = try reach(["status", "--config", file.path])
        #expect(result.status == 64)
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 1)
        #expect(lines.first?.contains("\(file.path):4: invalid rule 'wwan0 = cellular, cheap': unknown type 'cheap'") == true)
    }
}

/// Sets up `va` (overridden as Wi-Fi) with an address; `route` adds its default route.
private func uplink(_ ns: TestNamespace, route: Bool) throws {
    try ns.ipBatch(["link add va type veth peer name vb", "link set vb up", "link set va up", "addr add 10.7.0.2/24 dev va"])
    if route { try ns.ip("route", "add", "default", "via", "10.7.0.1", "dev", "va") }
}

/// Waits until the veth's carrier is up (the kernel reports it asynchronously).
private func waitForCarrier(_ ns: TestNamespace) async throws {
    for _ in 0..<300 {
        if try ns.ip("link", "show", "va").contains("LOWER_UP") { return }
        try await Task.sleep(for: .milliseconds(10))
    }
}

@Suite("reach against the kernel", .enabled(if: TestNamespace.isSupported))
struct ReachKernelTests {
    @Test func statusReachableExitsZeroWithTheSummaryLine() async throws {
        let ns = try TestNamespace()
        try uplink(ns, route: true)
        try await waitForCarrier(ns)
        let result = try reach(["status", "--override", "va=wifi"], in: ns)
        #expect(result.status == 0)
        #expect(result.stdout == "wifi via va (IPv4)\n")
    }

    @Test func statusUnreachableExitsTwo() throws {
        let ns = try TestNamespace()
        try uplink(ns, route: false)
        let result = try reach(["status"], in: ns)
        #expect(result.status == 2)
        #expect(result.stdout == "unreachable\n")
    }

    @Test func statusJSONFollowsTheContract() async throws {
        let ns = try TestNamespace()
        try uplink(ns, route: true)
        try await waitForCarrier(ns)
        let result = try reach(["status", "--json", "--override", "va=cellular"], in: ns)
        #expect(result.status == 0)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(
            Set(object.keys)
                == ["status", "expensive", "ipv4", "ipv6", "primary", "underlay", "interfaces", "identity", "connectivity", "portalURL", "budgets"])
        // Not probing: nothing was validated, and the contract says so.
        #expect(object["connectivity"] as? String == "unknown")
        #expect(object["portalURL"] is NSNull)
        let identity = try #require(object["identity"] as? [String: Any])
        #expect(identity["interface"] as? String == "va")
        #expect(identity["gateways"] as? [String] == ["10.7.0.1"])
        #expect(identity["prefixes"] as? [String] == ["10.7.0.0/24"])
        #expect(object["status"] as? String == "cellular")
        #expect(object["expensive"] as? Bool == true)
        #expect(object["underlay"] is NSNull)
        #expect((object["primary"] as? [String: String]) == ["name": "va", "type": "cellular"])
        let interfaces = try #require(object["interfaces"] as? [[String: Any]])
        #expect(interfaces.map { $0["name"] as? String } == ["lo", "vb", "va"])
        for interface in interfaces {
            #expect(Set(interface.keys) == ["name", "index", "type", "expensive", "up", "running", "addresses", "evidence", "validation", "wifi"])
            #expect(interface["validation"] is NSNull)
            #expect(interface["wifi"] is NSNull)  // veths: nl80211 knows none of them
        }
        let va = try #require(interfaces.first { $0["name"] as? String == "va" })
        #expect(va["addresses"] as? [String] == ["10.7.0.2/24"] || (va["addresses"] as? [String])?.first == "10.7.0.2/24")
        #expect((va["evidence"] as? [String])?.first == "override=va=cellular (--override) -> cellular [decided]")
    }

    @Test func configFileRulesApply() async throws {
        let ns = try TestNamespace()
        try uplink(ns, route: true)
        try await waitForCarrier(ns)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("reach-\(UUID()).conf")
        try "# test uplinks\nv? = cellular   # the modem\nva = inexpensive\n".write(to: file, atomically: false, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let result = try reach(["status", "--config", file.path], in: ns)
        #expect(result.stdout == "cellular via va (IPv4)\n")
    }

    @Test func interfacesExplainShowsEveryInterfaceAndItsEvidence() throws {
        let ns = try TestNamespace()
        try uplink(ns, route: false)
        let result = try reach(["interfaces", "--explain", "--override", "va=wifi", "--sysfs-root", "/nonexistent"], in: ns)
        #expect(result.status == 0)
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first == "INDEX  NAME  TYPE      EXPENSIVE  STATE    ADDRESSES")
        #expect(lines.contains { $0.hasPrefix("1      lo    loopback  no         running  127.0.0.1/8") })
        #expect(lines.contains("       override=va=wifi (--override) -> wifi [decided]"))
        #expect(lines.contains("       kind=veth -> virtual [decided]"))
    }

    @Test func watchPrintsTheCurrentPathThenEachChange() async throws {
        let ns = try TestNamespace()
        try uplink(ns, route: false)
        let stream = try ReachStream(["watch", "--debounce", "0", "--override", "va=wifi"], in: ns)
        defer { stream.stop() }
        let first = try await stream.waitForLine { _ in true }
        #expect(first.hasSuffix("  unreachable"))
        #expect(first.range(of: #"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z  "#, options: .regularExpression) != nil)
        try ns.ip("route", "add", "default", "via", "10.7.0.1", "dev", "va")
        let online = try await stream.waitForLine(after: 1) { _ in true }
        #expect(online.hasSuffix("  wifi via va (IPv4)"))
        // Same Wi-Fi interface, another gateway: a move to another network is printed too.
        try ns.ip("route", "replace", "default", "via", "10.7.0.254", "dev", "va")
        let moved = try await stream.waitForLine(after: 2) { _ in true }
        #expect(moved.hasSuffix("  wifi via va (IPv4) (network changed: gateway 10.7.0.254, prefix 10.7.0.0/24, va index 3)"))
        try ns.ip("link", "set", "va", "down")
        let offline = try await stream.waitForLine(after: 3) { _ in true }
        #expect(offline.hasSuffix("  unreachable"))
    }

    /// With `--all-changes` a change the summary does not show (an address added) says what
    /// changed, instead of repeating the line before word for word.
    @Test func watchAllChangesSaysWhatChangedWhenTheSummaryDidNot() async throws {
        let ns = try TestNamespace()
        // No IPv6: its link-local address would be a change of its own.
        _ = try ns.run(["sysctl", "-q", "-w", "net.ipv6.conf.all.disable_ipv6=1", "net.ipv6.conf.default.disable_ipv6=1"])
        try uplink(ns, route: false)
        try await waitForCarrier(ns)
        try ns.ip("route", "add", "default", "via", "10.7.0.1", "dev", "va")
        let stream = try ReachStream(["watch", "--all-changes", "--debounce", "0", "--override", "va=wifi"], in: ns)
        defer { stream.stop() }
        _ = try await stream.waitForLine { $0.contains("wifi via va") }
        try await Task.sleep(for: .milliseconds(300))
        let seen = stream.received.count
        try ns.ip("addr", "add", "10.7.0.3/24", "dev", "va")
        let next = try await stream.waitForLine(after: seen) { _ in true }
        #expect(next.hasSuffix("  wifi via va (IPv4) (changed: addresses)"), "\(stream.received)")
    }

    @Test func watchJSONPrintsOneObjectPerLine() async throws {
        let ns = try TestNamespace()
        try uplink(ns, route: false)
        let stream = try ReachStream(["watch", "--json", "--debounce", "0", "--override", "va=cellular"], in: ns)
        defer { stream.stop() }
        _ = try await stream.waitForLine { _ in true }
        try ns.ip("route", "add", "default", "via", "10.7.0.1", "dev", "va")
        let line = try await stream.waitForLine(after: 1) { _ in true }
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(object["status"] as? String == "cellular")
        #expect(object["expensive"] as? Bool == true)
        #expect((object["time"] as? String)?.hasSuffix("Z") == true)
    }
}

@Suite("reach interfaces --offline")
struct ReachOfflineTests {
    /// A laptop: Intel Wi-Fi, a Quectel modem in raw-IP mode, an iPhone tethering over USB,
    /// a docker bridge and WireGuard.
    static func laptop() throws -> SysfsFixture {
        let fixture = try SysfsFixture()
        try fixture.add([
            .loopback(), .intelWiFi(index: 2), .qmiWWAN(index: 3), .ipheth(index: 4),
            .bridge(name: "docker0", index: 5), .wireguard(index: 6),
        ])
        return fixture
    }

    @Test func classifiesFromSysfsAloneAsJSON() throws {
        let fixture = try Self.laptop()
        defer { fixture.remove() }
        let result = try reach(["interfaces", "--offline", "--sysfs-root", fixture.root, "--json"])
        #expect(result.status == 0)
        let interfaces = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]])
        let summary = interfaces.map { "\($0["name"]!) \($0["type"]!) \($0["expensive"] as! Bool)" }
        #expect(summary == [
            "lo loopback false", "wlp0s20f3 wifi false", "wwan0 cellular true", "enp0s20f0u1c4i2 wired true",
            "docker0 virtual false", "wg0 tunnel false",
        ])
        for interface in interfaces {
            #expect(Set(interface.keys) == ["name", "index", "type", "expensive", "up", "running", "evidence", "validation", "wifi"])
        }
        let wifi = try #require(interfaces.first { $0["name"] as? String == "wlp0s20f3" })
        #expect((wifi["evidence"] as? [String])?.contains("DEVTYPE=wlan -> wifi [decided]") == true)
    }

    @Test func overridesApplyOffline() throws {
        let fixture = try Self.laptop()
        defer { fixture.remove() }
        let result = try reach(["interfaces", "--offline", "--sysfs-root", fixture.root, "--override", "wwan*=inexpensive"])
        #expect(result.status == 0)
        let row = result.stdout.split(separator: "\n").first { $0.contains("wwan0") }
        #expect(row?.contains("cellular  no") == true)
    }
}

@Suite("reach config check")
struct ReachConfigCheckTests {
    @Test func aValidFileIsReportedValid() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try directory.write("reach.conf", "# uplinks\nwlan* = wifi\nusb:12d1:14db = cellular\ndriver:ipheth = wired, expensive\nmac:02:00:00:00:00:01 = inexpensive\ndhcp:android-metered = inexpensive\n")
        let result = try reach(["config", "check", directory.path + "/reach.conf"])
        #expect(result.status == 0)
        #expect(result.stdout == "\(directory.path)/reach.conf: 5 rules, valid\n")
    }

    @Test func everyBadLineIsReportedWithItsNumber() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = directory.path + "/reach.conf"
        try directory.write("reach.conf", "wlan* = wifi\nusb:12d = cellular\n\nmac:zz = wired\nok0 = cellular\ndhcp:metered = expensive\nwwan0 = satellite\n")
        let result = try reach(["config", "check", file])
        #expect(result.status == 64)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.split(separator: "\n") == [
            "\(file):2: invalid rule 'usb:12d = cellular': expected usb:VENDOR[:PRODUCT] with 4-digit hex ids, not 'usb:12d'",
            "\(file):4: invalid rule 'mac:zz = wired': expected mac:aa:bb:cc:dd:ee:ff, not 'mac:zz'",
            "\(file):6: invalid rule 'dhcp:metered = expensive': the only DHCP hint is 'dhcp:android-metered', not 'dhcp:metered'",
            "\(file):7: invalid rule 'wwan0 = satellite': unknown type 'satellite' (known: wifi, cellular, wired, loopback, tunnel, virtual, bluetooth, other, expensive, inexpensive)",
        ])
    }

    @Test func aMissingFileExits64() throws {
        let result = try reach(["config", "check", "/nonexistent/reach.conf"])
        #expect(result.status == 64)
        #expect(result.stderr.hasPrefix("reach: /nonexistent/reach.conf: cannot read"))
    }
}

@Suite("reach status --to", .enabled(if: TestNamespace.isSupported))
struct ReachDestinationTests {
    @Test func answersPerDestinationWithTheTunnelsUnderlay() async throws {
        let ns = try TestNamespace()
        try ns.ipBatch([
            "link add va type veth peer name va-peer", "link add vpn0 type veth peer name vpn0-peer",
            "link set va-peer up", "link set vpn0-peer up", "link set va up", "link set vpn0 up",
            "addr add 10.1.0.2/24 dev va", "addr add 10.99.0.2/24 dev vpn0",
        ])
        for _ in 0..<300 where !(try ns.ip("link", "show", "vpn0").contains("LOWER_UP")) { try await Task.sleep(for: .milliseconds(10)) }
        try ns.ip("route", "add", "default", "via", "10.1.0.1", "dev", "va")
        try ns.ip("route", "add", "default", "dev", "vpn0", "table", "51820")
        try ns.ip("rule", "add", "not", "fwmark", "0x51820", "table", "51820")
        let rules = ["--override", "va=cellular", "--override", "vpn0=tunnel", "--sysfs-root", "/nonexistent"]

        let viaTunnel = try reach(["status", "--to", "192.0.2.80"] + rules, in: ns)
        #expect(viaTunnel.status == 0)
        #expect(viaTunnel.stdout == "192.0.2.80 via vpn0 over va: cellular (IPv4) expensive\n")

        let local = try reach(["status", "--to", "10.1.0.77", "--json"] + rules, in: ns)
        let routes = try #require(try JSONSerialization.jsonObject(with: Data(local.stdout.utf8)) as? [[String: Any]])
        #expect(routes.count == 1)
        #expect((routes.first?["interface"] as? [String: String])?["name"] == "vpn0")

        let v6 = try reach(["status", "--to", "2001:db8::1"] + rules, in: ns)
        #expect(v6.status == 2)
        #expect(v6.stdout == "2001:db8::1: no route\n")
    }

    @Test func anUnresolvableNameExitsTwoWithTheReason() throws {
        // Inside an empty namespace no resolver is reachable: the lookup fails without any
        // packet leaving the sandbox.
        let ns = try TestNamespace()
        let result = try reach(["status", "--to", "no-such-host.invalid"], in: ns)
        #expect(result.status == 2)
        #expect(result.stderr.hasPrefix("reach: cannot resolve 'no-such-host.invalid'"))
    }
}
