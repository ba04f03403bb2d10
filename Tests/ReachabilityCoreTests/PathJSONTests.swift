import Foundation
import ReachabilityCore
import Testing

/// `PathJSON` is the one writer of the JSON contract; `Decodable` reads it back.
@Suite("PathJSON")
struct PathJSONTests {
    static let paths: [NetworkPath] = evaluatorCases.map { row in
        PathEvaluator(classifier: Classifier(overrides: row.overrides.compactMap { try? OverrideRule(parsing: $0) })).evaluate(row.snapshot)
    } + [
        NetworkPath(
            status: .other, interfaces: [
                Interface(name: "we\"ird\\name\u{1}\t/é", index: 7, type: .other, isExpensive: false, isUp: true, isRunning: false,
                          addresses: [], evidence: [Evidence(signal: "name", value: "x", suggests: .other, note: "a \"quote\"")])
            ], identity: PathIdentity(interface: "x", index: 7, gateways: ["fe80::1"], prefixes: [], underlay: "u")),
        // Validated: a portal found by an HTTP probe, with its record.
        NetworkPath(
            status: .wifi, ipv4: true, primary: InterfaceReference(name: "va", type: .wifi),
            interfaces: [
                Interface(
                    name: "va", index: 3, type: .wifi, isExpensive: false, isUp: true, isRunning: true, addresses: ["10.1.0.2/24"],
                    validation: InterfaceValidation(
                        connectivity: .portal, portalURL: "http://10.9.0.2/login",
                        probes: [
                            ProbeRecord(
                                url: "http://10.9.0.1/generate_204", kind: .http, interface: "va", address: "10.9.0.1:80",
                                startedAt: 1_795_000_000_123, milliseconds: 4, outcome: .portal, portalURL: "http://10.9.0.2/login",
                                detail: "302 Found to http://10.9.0.2/login")
                        ]))
            ], connectivity: .portal, portalURL: "http://10.9.0.2/login"),
    ]

    /// The text is valid JSON that decodes to the same value and writes the same text again.
    @Test(arguments: paths)
    func roundTripsThroughDecodable(_ path: NetworkPath) throws {
        let text = PathJSON.text(path)
        let decoded = try JSONDecoder().decode(NetworkPath.self, from: Data(text.utf8))
        #expect(decoded == path)
        #expect(PathJSON.text(decoded) == text)
        let interfaces = try JSONDecoder().decode([Interface].self, from: Data(PathJSON.text(path.interfaces).utf8))
        #expect(interfaces == path.interfaces)
    }

    /// Keys sorted, `null` for a missing primary and underlay, evidence as its text: the contract
    /// of the README, written out in full once.
    @Test func writesTheDocumentedContract() {
        let path = NetworkPath(
            status: .wifi, isExpensive: false, ipv4: true, primary: InterfaceReference(name: "wlan0", type: .wifi),
            interfaces: [
                Interface(name: "wlan0", index: 2, type: .wifi, isExpensive: false, isUp: true, isRunning: true,
                          addresses: ["192.0.2.10/24"], evidence: [Evidence(signal: "DEVTYPE", value: "wlan", suggests: .wifi, isDecisive: true)],
                          wifi: WifiFacts(mode: .station, association: WifiAssociation(
                            ssid: "Home", bssid: "a4:2b:b0:00:00:01", frequencyMHz: 5180, signalDBm: -52, transmitRateKbps: 866_700,
                            receiveRateKbps: 650_000, beacon: BeaconSignals(accessNetworkType: 0), accessPointsWithSSID: 2)))
            ], identity: PathIdentity(interface: "wlan0", index: 2, gateways: ["192.0.2.1"], prefixes: ["192.0.2.0/24"], ssid: "Home"))
        #expect(PathJSON.text(path) == """
            {"budgets":[],"connectivity":"unknown","expensive":false,"identity":{"gateways":["192.0.2.1"],"index":2,"interface":"wlan0",\
            "prefixes":["192.0.2.0/24"],"ssid":"Home"},"interfaces":[{"addresses":["192.0.2.10/24"],"evidence":["DEVTYPE=wlan -> wifi [decided]"],\
            "expensive":false,"index":2,"name":"wlan0","running":true,"type":"wifi","up":true,"validation":null,\
            "wifi":{"accessPoints":2,"associated":true,"band":"5GHz","beacon":{"accessNetworkType":0,"appleHotspot":false,"networkCost":null},\
            "bssid":"a4:2b:b0:00:00:01","frequencyMHz":5180,"mode":"station","receiveRateKbps":650000,"signalDBm":-52,"ssid":"Home",\
            "transmitRateKbps":866700}}],"ipv4":true,\
            "ipv6":false,"portalURL":null,"primary":{"name":"wlan0","type":"wifi"},"status":"wifi","underlay":null}
            """)
        #expect(PathJSON.text(path.interfaces, withAddresses: false).hasPrefix("[{\"evidence\":"))
    }

    @Test func destinationRoutesRoundTripAndSayLocal() throws {
        let routes = [
            DestinationRoute(
                destination: "127.0.0.1", family: .ipv4, interface: InterfaceReference(name: "lo", type: .loopback), status: .other,
                isExpensive: false, isUsable: true, isLocal: true),
            DestinationRoute(
                destination: "2001:db8::1", family: .ipv6, interface: InterfaceReference(name: "wg0", type: .tunnel),
                underlay: InterfaceReference(name: "wwan0", type: .cellular), gateway: "fe80::1", status: .cellular, isExpensive: true,
                isUsable: true),
        ]
        let text = PathJSON.text(routes)
        #expect(text.hasPrefix("[{\"destination\":\"127.0.0.1\",\"expensive\":false,\"family\":\"ipv4\",\"gateway\":null,"))
        #expect(text.contains("\"local\":true"))
        #expect(try JSONDecoder().decode([DestinationRoute].self, from: Data(text.utf8)) == routes)
    }

    @Test func theTimeFieldComesFirstAndTheLineRoundTrips() throws {
        let path = try #require(Self.paths.first { $0.status == .wifi })
        let line = PathJSON.text(path, time: "2026-11-22T10:00:00.123Z")
        #expect(line.hasPrefix("{\"time\":\"2026-11-22T10:00:00.123Z\",\"budgets\":[],\"connectivity\":"))
        let decoded = try JSONDecoder().decode(NetworkPath.self, from: Data(line.utf8))
        #expect(decoded == path)
    }

    @Test func budgetsRoundTripInThePath() throws {
        var path = try #require(Self.paths.first { $0.status == .wifi })
        path.budgets = [
            PathBudget(name: "sim", state: .warning, limitBytes: 2_000_000_000, cycleEnd: "2026-12-01T00:00:00Z"),
            PathBudget(name: "forever", state: .ok, limitBytes: 1, cycleEnd: nil),
        ]
        let line = PathJSON.text(path)
        #expect(line.hasPrefix("{\"budgets\":[{\"cycleEnd\":\"2026-12-01T00:00:00Z\",\"limitBytes\":2000000000,\"name\":\"sim\",\"state\":\"warning\"}"))
        #expect(try JSONDecoder().decode(NetworkPath.self, from: Data(line.utf8)) == path)
    }

    /// Evidence read back from text keeps the text exactly and recovers its fields.
    @Test(arguments: [
        Evidence(signal: "DEVTYPE", value: "wlan", suggests: .wifi, isDecisive: true),
        Evidence(signal: "usb", value: "12d1:1506", suggests: .cellular, note: "Huawei HiLink"),
        Evidence(signal: "cost", value: "driver ipheth"),
    ])
    func evidenceTextRoundTrips(_ evidence: Evidence) {
        #expect(Evidence(text: evidence.description) == evidence)
    }
}
