import ReachabilityCore
import ReachabilityMetrics
import Testing

@Suite("Path metrics")
struct PathMetricsTests {
    /// One observation and every path series the render must show after it.
    struct Step: Sendable, CustomTestStringConvertible {
        let label: String
        let path: NetworkPath
        let status: NetworkPath.Status
        let expensive: Double
        let interfaces: [String]
        let changes: Double

        var testDescription: String { label }
    }

    static let wifiThenCellularThenOffline: [Step] = [
        Step(
            label: "wifi", path: PathFixtures.wifi, status: .wifi, expensive: 0,
            interfaces: [
                PathFixtures.infoSeries("lo", "loopback", expensive: false), PathFixtures.infoSeries("wlan0", "wifi", expensive: false),
            ],
            changes: 0),
        Step(
            label: "cellular, expensive", path: PathFixtures.cellular, status: .cellular, expensive: 1,
            interfaces: [
                PathFixtures.infoSeries("lo", "loopback", expensive: false), PathFixtures.infoSeries("wwan0", "cellular", expensive: true),
            ],
            changes: 1),
        Step(
            label: "offline", path: PathFixtures.offline, status: .unreachable, expensive: 0,
            interfaces: [PathFixtures.infoSeries("lo", "loopback", expensive: false)], changes: 2),
    ]

    @Test func beforeAnyPathEveryStatusIsZeroAndNoInterfaceIsShown() {
        let exposition = Exposition(ReachMetrics().render())
        #expect(exposition.family("reach_path_status") == PathFixtures.statusSeries(nil))
        #expect(exposition.family("reach_path_expensive") == ["reach_path_expensive": 0])
        #expect(exposition.family("reach_interface_info").isEmpty)
        #expect(exposition.family("reach_path_changes_total") == ["reach_path_changes_total": 0])
    }

    @Test func wifiThenCellularThenOfflineRenderExactlyTheirSeries() {
        let metrics = ReachMetrics()
        for step in Self.wifiThenCellularThenOffline {
            metrics.observe(step.path)
            let exposition = Exposition(metrics.render())
            #expect(exposition.family("reach_path_status") == PathFixtures.statusSeries(step.status), "\(step.label)")
            #expect(exposition.family("reach_path_expensive") == ["reach_path_expensive": step.expensive], "\(step.label)")
            let interfaces = Dictionary(uniqueKeysWithValues: step.interfaces.map { ($0, 1.0) })
            #expect(exposition.family("reach_interface_info") == interfaces, "\(step.label)")
            #expect(exposition.family("reach_path_changes_total") == ["reach_path_changes_total": step.changes], "\(step.label)")
        }
    }

    /// A state set over every connectivity value: `unknown` until validation says otherwise.
    @Test func connectivityIsAStateSetThatFollowsThePath() {
        let metrics = ReachMetrics()
        func series(_ current: Connectivity) -> [String: Double] {
            Dictionary(uniqueKeysWithValues: Connectivity.all.map {
                ("reach_path_connectivity{connectivity=\"\($0.rawValue)\"}", $0 == current ? 1.0 : 0.0)
            })
        }
        #expect(Exposition(metrics.render()).family("reach_path_connectivity") == series(.unknown))
        var portal = PathFixtures.wifi
        portal.connectivity = .portal
        metrics.observe(portal)
        #expect(Exposition(metrics.render()).family("reach_path_connectivity") == series(.portal))
        metrics.observe(PathFixtures.offline)
        #expect(Exposition(metrics.render()).family("reach_path_connectivity") == series(.none))
    }

    @Test func anInterfaceThatGoesLeavesNoSeriesAndComesBackWithOne() {
        let metrics = ReachMetrics()
        var docked = PathFixtures.wifi
        docked.interfaces.append(Interface(name: "eth0", index: 4, type: .wired, isExpensive: false, isUp: true, isRunning: true))
        metrics.observe(docked)
        let eth0 = PathFixtures.infoSeries("eth0", "wired", expensive: false)
        #expect(Exposition(metrics.render()).family("reach_interface_info")[eth0] == 1)

        metrics.observe(PathFixtures.wifi)
        let undocked = Exposition(metrics.render())
        #expect(undocked.family("reach_interface_info").keys.sorted() == [
            PathFixtures.infoSeries("lo", "loopback", expensive: false), PathFixtures.infoSeries("wlan0", "wifi", expensive: false),
        ])
        #expect(!metrics.render().contains("eth0"))

        metrics.observe(docked)
        #expect(Exposition(metrics.render()).family("reach_interface_info")[eth0] == 1)
    }

    @Test func anInterfaceWhoseTypeChangesIsShownOnceUnderItsNewType() {
        let metrics = ReachMetrics()
        metrics.observe(PathFixtures.wifi)
        var reclassified = PathFixtures.wifi
        reclassified.interfaces[1].type = .wired
        metrics.observe(reclassified)
        let interfaces = Exposition(metrics.render()).family("reach_interface_info")
        #expect(interfaces.keys.sorted() == [
            PathFixtures.infoSeries("lo", "loopback", expensive: false), PathFixtures.infoSeries("wlan0", "wired", expensive: false),
        ])
        #expect(Exposition(metrics.render()).family("reach_path_changes_total") == ["reach_path_changes_total": 1])
    }

    /// An edit of the wifi path and how many changes it makes.
    struct Edit: Sendable, CustomTestStringConvertible {
        let label: String
        let changes: Double
        let apply: @Sendable (inout NetworkPath) -> Void

        var testDescription: String { label }
    }

    /// What counts as a change: status, cost, the interfaces' names, types and costs; not
    /// addresses, link state, primary or identity, and never the first path.
    static let edits: [Edit] = [
        Edit(label: "the same path again", changes: 0) { _ in },
        Edit(label: "an address added", changes: 0) { $0.interfaces[1].addresses.append("2001:db8::10/64") },
        Edit(label: "the link no longer running", changes: 0) { $0.interfaces[1].isRunning = false },
        Edit(label: "another identity", changes: 0) { $0.identity = PathIdentity(gateways: ["192.0.2.254"]) },
        Edit(label: "another primary", changes: 0) { $0.primary = nil },
        Edit(label: "expensive by a rule", changes: 1) { $0.isExpensive = true },
        Edit(label: "an interface's own cost", changes: 1) { $0.interfaces[1].isExpensive = true },
        Edit(label: "an interface added", changes: 1) { $0.interfaces.append(PathFixtures.wwan0) },
        Edit(label: "an interface removed", changes: 1) { $0.interfaces.removeLast() },
        Edit(label: "another status", changes: 1) { $0.status = .other },
    ]

    @Test(arguments: edits)
    func aChangeIsCountedOnlyForWhatTheSeriesShow(_ edit: Edit) {
        let metrics = ReachMetrics()
        metrics.observe(PathFixtures.wifi)
        var next = PathFixtures.wifi
        edit.apply(&next)
        metrics.observe(next)
        #expect(Exposition(metrics.render()).family("reach_path_changes_total") == ["reach_path_changes_total": edit.changes])
    }

    @Test func aFlapBetweenScrapesIsCountedTwice() {
        let metrics = ReachMetrics()
        metrics.observe(PathFixtures.wifi)
        metrics.observe(PathFixtures.offline)
        metrics.observe(PathFixtures.wifi)
        let exposition = Exposition(metrics.render())
        #expect(exposition.family("reach_path_status") == PathFixtures.statusSeries(.wifi))
        #expect(exposition.family("reach_path_changes_total") == ["reach_path_changes_total": 2])
    }

    @Test func twoInstancesKeepSeparateRegistries() {
        let first = ReachMetrics()
        let second = ReachMetrics()
        first.observe(PathFixtures.cellular)
        #expect(Exposition(second.render()).family("reach_path_status") == PathFixtures.statusSeries(nil))
        #expect(Exposition(first.render()).family("reach_path_status") == PathFixtures.statusSeries(.cellular))
    }
}

/// SSID and BSSID say where the machine is: never metric labels, whatever the path holds.
@Suite("Wi-Fi privacy in metrics")
struct WifiPrivacyMetricsTests {
    @Test func neitherTheSSIDNorTheBSSIDReachesTheExposition() {
        var station = PathFixtures.wlan0
        station.wifi = WifiFacts(mode: .station, association: WifiAssociation(
            ssid: "Home-4G-Router", bssid: "a4:2b:b0:12:34:56", frequencyMHz: 5180, signalDBm: -48,
            beacon: BeaconSignals(networkCost: NetworkCostElement(level: 2, flags: 0x04), accessNetworkType: 2)))
        var path = PathFixtures.wifi
        path.interfaces = [PathFixtures.loopback, station]
        path.identity.ssid = "Home-4G-Router"
        let metrics = ReachMetrics()
        metrics.observe(path)
        let text = metrics.render()
        #expect(text.contains("reach_interface_info"))
        #expect(!text.contains("Home-4G-Router"))
        #expect(!text.lowercased().contains("a4:2b:b0:12:34:56"))
        #expect(!text.contains("ssid") && !text.contains("bssid"))
    }
}
