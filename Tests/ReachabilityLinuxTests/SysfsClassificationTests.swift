import Glibc
import ReachabilityCore
import ReachabilityLinux
import ReachabilityTestKit
import Testing

/// One tree of every preset, built once for the suite (file-system calls are slow on some CI
/// machines) and removed when the suite ends. The tests only read it.
struct EveryKindFixture: SuiteTrait, TestScoping {
    @TaskLocal static var current: SysfsFixture?

    func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        let fixture = try SysfsFixture()
        defer { fixture.remove() }
        try fixture.add(FixtureInterface.everyKind)
        try await Self.$current.withValue(fixture) { try await function() }
    }
}

extension Trait where Self == EveryKindFixture {
    static var everyKindFixture: Self { EveryKindFixture() }
}

private func everyKind(sourceLocation: SourceLocation = #_sourceLocation) throws -> SysfsFixture {
    try #require(EveryKindFixture.current, "the suite needs the .everyKindFixture trait", sourceLocation: sourceLocation)
}

private func named(_ name: String, in facts: [InterfaceFacts]) throws -> InterfaceFacts {
    try #require(facts.first { $0.name == name }, "no interface \(name)")
}

// MARK: - What SysfsReader reads

/// The sysfs facts expected for one preset.
struct SysfsRow: Sendable, CustomTestStringConvertible {
    var name: String
    var expected: SysfsFacts
    var testDescription: String { name }
}

private let sysfsRows: [SysfsRow] = [
    SysfsRow(name: "lo", expected: SysfsFacts()),
    SysfsRow(name: "wlp0s20f3", expected: SysfsFacts(
        deviceType: "wlan", hasWirelessDirectory: true, hasPhy80211: true, hasDevice: true, driver: "iwlwifi", bus: "pci")),
    SysfsRow(name: "wlx00c0ca9a1b2c", expected: SysfsFacts(
        deviceType: "wlan", hasWirelessDirectory: true, hasPhy80211: true, hasDevice: true, driver: "mt7601u", bus: "usb",
        usbVendorID: "148f", usbProductID: "7601")),
    SysfsRow(name: "wwan0", expected: SysfsFacts(
        deviceType: "wwan", hasDevice: true, driver: "qmi_wwan", bus: "usb", usbVendorID: "2c7c", usbProductID: "0125",
        qmiRawIP: true)),
    SysfsRow(name: "wwan3", expected: SysfsFacts(
        deviceType: "wwan", hasDevice: true, driver: "qmi_wwan", bus: "usb", usbVendorID: "1199", usbProductID: "9071",
        qmiRawIP: false)),
    SysfsRow(name: "wwan1", expected: SysfsFacts(
        deviceType: "wwan", hasDevice: true, driver: "cdc_mbim", bus: "usb", usbVendorID: "1199", usbProductID: "9079")),
    // The WWAN framework parents the netdev to a `wwanN` class device: no driver, "bus" is the class.
    SysfsRow(name: "wwan2", expected: SysfsFacts(deviceType: "wwan", hasDevice: true, driver: nil, bus: "wwan")),
    SysfsRow(name: "rmnet_data0", expected: SysfsFacts()),
    SysfsRow(name: "ppp0", expected: SysfsFacts(deviceType: "ppp")),
    SysfsRow(name: "enp0s31f6", expected: SysfsFacts(hasDevice: true, driver: "e1000e", bus: "pci")),
    SysfsRow(name: "br0", expected: SysfsFacts(deviceType: "bridge", isBridge: true)),
    SysfsRow(name: "docker0", expected: SysfsFacts(deviceType: "bridge", isBridge: true)),
    SysfsRow(name: "veth3f2a1b0", expected: SysfsFacts()),
    SysfsRow(name: "bond0", expected: SysfsFacts(deviceType: "bond", isBond: true)),
    SysfsRow(name: "enx0050b6aabbcc", expected: SysfsFacts(
        hasDevice: true, driver: "ax88179_178a", bus: "usb", usbVendorID: "0b95", usbProductID: "1790")),
    SysfsRow(name: "enx00e04c680001", expected: SysfsFacts(
        hasDevice: true, driver: "r8152", bus: "usb", usbVendorID: "0bda", usbProductID: "8153")),
    SysfsRow(name: "wlp0s20f3.100", expected: SysfsFacts(deviceType: "vlan")),
    SysfsRow(name: "wg0", expected: SysfsFacts(deviceType: "wireguard")),
    SysfsRow(name: "tun0", expected: SysfsFacts(tunFlags: 0x1001)),
    SysfsRow(name: "tap0", expected: SysfsFacts(tunFlags: 0x1002)),
    SysfsRow(name: "ens3", expected: SysfsFacts(hasDevice: true, driver: "virtio_net", bus: "virtio")),
    SysfsRow(name: "enp0s20f0u1c4i2", expected: SysfsFacts(
        hasDevice: true, driver: "ipheth", bus: "usb", usbVendorID: "05ac", usbProductID: "12a8")),
    // The parent is the ACL connection `hci0:256` (class bluetooth). The adapter's own USB ids
    // (8087:0a2b) sit five levels up and are not the network's: they must not be reported.
    SysfsRow(name: "bnep0", expected: SysfsFacts(deviceType: "bluetooth", hasDevice: true, driver: nil, bus: "bluetooth")),
    SysfsRow(name: "eth1", expected: SysfsFacts(
        deviceType: "wlan", hasWirelessDirectory: true, hasPhy80211: true, hasDevice: true, driver: "iwlwifi", bus: "pci")),
    SysfsRow(name: "wlan9", expected: SysfsFacts(hasDevice: true, driver: "igc", bus: "pci")),
]

// MARK: - What the classifier decides

/// One decision: type, cost, and the signal (and its value) that decided.
struct ExpectedDecision: Sendable, CustomStringConvertible {
    var type: InterfaceType
    var isExpensive: Bool
    var signal: String
    var value: String

    init(_ type: InterfaceType, expensive: Bool = false, by signal: String, _ value: String) {
        self.type = type
        self.isExpensive = expensive
        self.signal = signal
        self.value = value
    }

    var description: String { "\(type)\(isExpensive ? ",expensive" : "") by \(signal)=\(value)" }

    func check(_ classification: Classification, _ name: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(classification.type == type, "\(name): \(classification.evidence)", sourceLocation: sourceLocation)
        #expect(classification.isExpensive == isExpensive, "\(name): \(classification.evidence)", sourceLocation: sourceLocation)
        #expect(classification.decidedBy?.signal == signal, "\(name): \(classification.evidence)", sourceLocation: sourceLocation)
        #expect(classification.decidedBy?.value == value, "\(name): \(classification.evidence)", sourceLocation: sourceLocation)
        #expect(classification.evidence.filter(\.isDecisive).count == 1, "\(name): \(classification.evidence)", sourceLocation: sourceLocation)
    }
}

/// The expected decision from sysfs alone (`offlineInterfaces()`, no rtnl kind) and from netlink
/// facts plus sysfs (what the monitor sees).
struct ClassificationRow: Sendable, CustomTestStringConvertible {
    var name: String
    var offline: ExpectedDecision
    var netlink: ExpectedDecision
    var testDescription: String { "\(name): \(netlink)" }

    init(_ name: String, offline: ExpectedDecision, netlink: ExpectedDecision? = nil) {
        self.name = name
        self.offline = offline
        self.netlink = netlink ?? offline
    }
}

private let classificationRows: [ClassificationRow] = [
    ClassificationRow("lo", offline: ExpectedDecision(.loopback, by: "flags", "LOOPBACK")),
    ClassificationRow("wlp0s20f3", offline: ExpectedDecision(.wifi, by: "DEVTYPE", "wlan")),
    ClassificationRow("wlx00c0ca9a1b2c", offline: ExpectedDecision(.wifi, by: "DEVTYPE", "wlan")),
    ClassificationRow("wwan0", offline: ExpectedDecision(.cellular, expensive: true, by: "DEVTYPE", "wwan")),
    ClassificationRow("wwan3", offline: ExpectedDecision(.cellular, expensive: true, by: "DEVTYPE", "wwan")),
    ClassificationRow("wwan1", offline: ExpectedDecision(.cellular, expensive: true, by: "DEVTYPE", "wwan")),
    ClassificationRow(
        "wwan2", offline: ExpectedDecision(.cellular, expensive: true, by: "ARPHRD", "519"),
        netlink: ExpectedDecision(.cellular, expensive: true, by: "kind", "wwan")),
    ClassificationRow(
        "rmnet_data0", offline: ExpectedDecision(.cellular, expensive: true, by: "ARPHRD", "519"),
        netlink: ExpectedDecision(.cellular, expensive: true, by: "kind", "rmnet")),
    ClassificationRow(
        "ppp0", offline: ExpectedDecision(.cellular, expensive: true, by: "ARPHRD", "512"),
        netlink: ExpectedDecision(.cellular, expensive: true, by: "kind", "ppp")),
    ClassificationRow("enp0s31f6", offline: ExpectedDecision(.wired, by: "device", "pci/e1000e")),
    ClassificationRow(
        "br0", offline: ExpectedDecision(.virtual, by: "DEVTYPE", "bridge"), netlink: ExpectedDecision(.virtual, by: "kind", "bridge")),
    ClassificationRow(
        "docker0", offline: ExpectedDecision(.virtual, by: "DEVTYPE", "bridge"), netlink: ExpectedDecision(.virtual, by: "kind", "bridge")),
    ClassificationRow(
        "veth3f2a1b0", offline: ExpectedDecision(.virtual, by: "device", "none"), netlink: ExpectedDecision(.virtual, by: "kind", "veth")),
    ClassificationRow(
        "bond0", offline: ExpectedDecision(.virtual, by: "DEVTYPE", "bond"), netlink: ExpectedDecision(.virtual, by: "kind", "bond")),
    // The USB vendor table names these adapters before the generic "hardware behind it" rule.
    ClassificationRow("enx0050b6aabbcc", offline: ExpectedDecision(.wired, by: "usb", "0b95:1790")),
    ClassificationRow("enx00e04c680001", offline: ExpectedDecision(.wired, by: "usb", "0bda:8153")),
    ClassificationRow(
        "wlp0s20f3.100", offline: ExpectedDecision(.virtual, by: "DEVTYPE", "vlan"), netlink: ExpectedDecision(.virtual, by: "kind", "vlan")),
    ClassificationRow(
        "wg0", offline: ExpectedDecision(.tunnel, by: "DEVTYPE", "wireguard"), netlink: ExpectedDecision(.tunnel, by: "kind", "wireguard")),
    ClassificationRow(
        "tun0", offline: ExpectedDecision(.tunnel, by: "tun_flags", "0x1001"), netlink: ExpectedDecision(.tunnel, by: "kind", "tun")),
    ClassificationRow(
        "tap0", offline: ExpectedDecision(.tunnel, by: "tun_flags", "0x1002"), netlink: ExpectedDecision(.tunnel, by: "kind", "tun")),
    ClassificationRow("ens3", offline: ExpectedDecision(.wired, by: "device", "virtio/virtio_net")),
    // A phone tethering its mobile data: wired, but expensive.
    ClassificationRow("enp0s20f0u1c4i2", offline: ExpectedDecision(.wired, expensive: true, by: "driver", "ipheth")),
    ClassificationRow("bnep0", offline: ExpectedDecision(.bluetooth, expensive: true, by: "DEVTYPE", "bluetooth")),
    // Renamed interfaces: kernel evidence wins over the name.
    ClassificationRow("eth1", offline: ExpectedDecision(.wifi, by: "DEVTYPE", "wlan")),
    ClassificationRow("wlan9", offline: ExpectedDecision(.wired, by: "device", "pci/igc")),
]

@Suite("SysfsClassification", .everyKindFixture)
struct SysfsClassificationTests {
    @Test("the fixture covers every classification row")
    func fixtureCoversEveryRow() {
        let presetNames = Set(FixtureInterface.everyKind.map(\.name))
        #expect(Set(sysfsRows.map(\.name)) == presetNames)
        #expect(Set(classificationRows.map(\.name)) == presetNames)
        #expect(presetNames.count == FixtureInterface.everyKind.count, "names must be distinct")
        #expect(Set(FixtureInterface.everyKind.map(\.index)).count == FixtureInterface.everyKind.count, "indices must be distinct")
    }

    // MARK: Layout

    @Test("class/net entries are relative links into devices/, like real sysfs", arguments: FixtureInterface.everyKind)
    func layoutIsLikeRealSysfs(_ interface: FixtureInterface) throws {
        let fixture = try everyKind()
        let target = try #require(readLink("\(fixture.root)/class/net/\(interface.name)"))
        if interface.device == nil {
            #expect(target == "../../devices/virtual/net/\(interface.name)")
            #expect(readLink("\(fixture.root)/class/net/\(interface.name)/device") == nil)
        } else {
            #expect(target.hasPrefix("../../devices/pci0000:00/"))
            #expect(target.hasSuffix("/net/\(interface.name)"))
            #expect(!target.contains("virtual"))
            let device = try #require(readLink("\(fixture.root)/class/net/\(interface.name)/device"))
            let deviceName = try #require(interface.device?.path.split(separator: "/").last)
            #expect(device == "../../../\(deviceName)", "the kernel's relative form")
            if let driver = interface.device?.driver {
                let driverLink = try #require(readLink("\(fixture.root)/class/net/\(interface.name)/device/driver"))
                #expect(driverLink.hasPrefix("../"))
                #expect(driverLink.hasSuffix("/\(interface.device?.subsystem ?? "")/drivers/\(driver)"))
            }
        }
        if let phy = interface.phy {
            #expect(readLink("\(fixture.root)/class/net/\(interface.name)/phy80211") == "../../ieee80211/\(phy)")
        }
        let uevent = try #require(readText("\(fixture.root)/class/net/\(interface.name)/uevent"))
        #expect(uevent.contains("INTERFACE=\(interface.name)\n"))
        #expect(uevent.contains("IFINDEX=\(interface.index)\n"))
        #expect(readText("\(fixture.root)/class/net/\(interface.name)/ifindex") == "\(interface.index)\n")
        #expect(readText("\(fixture.root)/class/net/\(interface.name)/type") == "\(interface.hardwareType)\n")
    }

    @Test("removing the fixture deletes the whole tree; a second remove is harmless")
    func removeDeletesTree() throws {
        let fixture = try SysfsFixture()
        try fixture.add(FixtureInterface.everyKind)
        let root = fixture.root
        #expect(root.hasPrefix("/tmp/reach-sysfs-"))
        #expect(access("\(root)/class/net/lo", F_OK) == 0)
        fixture.remove()
        #expect(access(root, F_OK) != 0)
        fixture.remove()  // a second call is harmless
        #expect(access(root, F_OK) != 0)
    }

    @Test("adding a port before its master, or a name twice, fails")
    func addRejectsBadOrder() throws {
        let fixture = try SysfsFixture()
        defer { fixture.remove() }
        #expect(throws: SysfsFixtureError.self) { try fixture.add(FixtureInterface.pciEthernet(index: 9).port(of: "br0")) }
        try fixture.add(FixtureInterface.loopback())
        let error = #expect(throws: SysfsFixtureError.self) { try fixture.add(FixtureInterface.loopback()) }
        #expect(error?.code == EEXIST)
        #expect(fixture.interfaces.map(\.name) == ["lo"])
    }

    // MARK: SysfsReader

    @Test("SysfsReader.facts(forInterface:) reads what the driver exposes", arguments: sysfsRows)
    func readsSysfsFacts(_ row: SysfsRow) throws {
        let fixture = try everyKind()
        let facts = try #require(SysfsReader(root: fixture.root).facts(forInterface: row.name))
        #expect(facts == row.expected)
    }

    @Test("a root with a trailing slash reads the same")
    func trailingSlashRoot() throws {
        let fixture = try everyKind()
        let plain = SysfsReader(root: fixture.root).facts(forInterface: "wwan0")
        let slashed = SysfsReader(root: fixture.root + "/").facts(forInterface: "wwan0")
        #expect(plain != nil)
        #expect(plain == slashed)
    }

    @Test("offlineInterfaces() reads index, ARPHRD, flags, master and iflink from sysfs")
    func offlineInterfacesStructure() throws {
        let fixture = try everyKind()
        let offline = try SysfsReader(root: fixture.root).offlineInterfaces()
        #expect(offline.map(\.index) == Array(1...25))
        #expect(offline.allSatisfy { $0.kind == nil }, "sysfs has no rtnl kind")
        #expect(offline.allSatisfy { $0.sysfs != nil })

        let wifi = try named("wlp0s20f3", in: offline)
        #expect(wifi.hardwareType == 1)
        #expect(wifi.flags == [.up, .broadcast, LinkFlags(rawValue: 0x1000), .lowerUp, .running])
        #expect(wifi.flags?.canCarryTraffic == true)
        #expect(wifi.operationalState == .up)
        #expect(wifi.macAddress == "a4:c3:f0:85:6e:01")
        #expect(wifi.parentIndex == nil)

        let loopback = try named("lo", in: offline)
        #expect(loopback.hardwareType == 772)
        #expect(loopback.flags?.contains(.loopback) == true)
        #expect(loopback.operationalState == .unknown)

        #expect(try named("wwan0", in: offline).hardwareType == 65534)
        #expect(try named("wwan0", in: offline).macAddress == nil, "raw-IP has no link-layer address")
        #expect(try named("wwan0", in: offline).flags?.contains(.pointToPoint) == true)
        #expect(try named("ppp0", in: offline).hardwareType == 512)
        #expect(try named("rmnet_data0", in: offline).hardwareType == 519)
        #expect(try named("rmnet_data0", in: offline).parentIndex == 4)
        #expect(try named("wlp0s20f3.100", in: offline).parentIndex == 2)
        #expect(try named("veth3f2a1b0", in: offline).parentIndex == 2, "a veth's iflink is its peer, here in another namespace")
        #expect(try named("enp0s31f6", in: offline).masterIndex == 10)
        #expect(try named("veth3f2a1b0", in: offline).masterIndex == 11)
        #expect(try named("enx0050b6aabbcc", in: offline).masterIndex == 13)
        #expect(try named("enx0050b6aabbcc", in: offline).flags?.contains(.slave) == true)
        #expect(try named("enp0s31f6", in: offline).flags?.contains(.slave) == false, "bridge ports are not IFF_SLAVE")
        #expect(try named("bond0", in: offline).flags?.contains(.master) == true)
        #expect(try named("br0", in: offline).masterIndex == nil)
    }

    @Test("a down interface has no LOWER_UP or RUNNING offline")
    func downInterfaceOffline() throws {
        let fixture = try SysfsFixture()
        defer { fixture.remove() }
        var down = FixtureInterface.pciEthernet(index: 2)
        down.flags = 0x1002
        down.operstate = "down"
        try fixture.add(down)
        let offline = try SysfsReader(root: fixture.root).offlineInterfaces()
        #expect(offline.count == 1)
        #expect(offline.first?.flags == [.broadcast, LinkFlags(rawValue: 0x1000)])
        #expect(offline.first?.operationalState == .down)
        #expect(offline.first?.flags?.canCarryTraffic == false)
    }

    /// A sysfs root can point anywhere: attributes that are devices or FIFOs are skipped, never
    /// read without end or waited on.
    @Test("attributes that are not regular files are ignored, not read")
    func hostileAttributes() throws {
        let fixture = try SysfsFixture()
        defer { fixture.remove() }
        try fixture.add(.intelWiFi(name: "wlan0", index: 3))
        let directory = "\(fixture.root)/class/net/wlan0"
        let target = try #require(FileSystemProbe.resolve(directory))
        unlink("\(target)/uevent")
        #expect(symlink("/dev/zero", "\(target)/uevent") == 0)
        unlink("\(target)/ifindex")
        #expect(mkfifo("\(target)/ifindex", 0o600) == 0)
        unlink("\(target)/address")
        #expect(symlink("/dev/urandom", "\(target)/address") == 0)
        let facts = try #require(SysfsReader(root: fixture.root).facts(forInterface: "wlan0"))
        #expect(facts.deviceType == nil)
        #expect(facts.hasWirelessDirectory)
        let offline = try SysfsReader(root: fixture.root).offlineInterfaces()
        #expect(offline.map(\.name) == ["wlan0"])
        #expect(offline.first?.macAddress == nil)
    }

    @Test("offlineInterfaces() on a missing root throws with the path")
    func offlineMissingRoot() throws {
        let fixture = try SysfsFixture()
        let root = fixture.root
        fixture.remove()
        let error = #expect(throws: SysfsError.self) { try SysfsReader(root: root).offlineInterfaces() }
        #expect(error?.path == "\(root)/class/net")
        #expect(error?.description == "\(root)/class/net: not a readable directory")
    }

    @Test("netlink facts and offline facts read the same sysfs facts", arguments: FixtureInterface.everyKind.map(\.name))
    func netlinkAndOfflineAgreeOnSysfs(_ name: String) throws {
        let fixture = try everyKind()
        let offline = try named(name, in: try SysfsReader(root: fixture.root).offlineInterfaces())
        let netlink = try named(name, in: fixture.linkFacts())
        #expect(netlink.sysfs != nil, "the namespace guard must accept the interface's own index and MAC")
        #expect(netlink.sysfs == offline.sysfs)
        #expect(netlink.index == offline.index)
        #expect(netlink.hardwareType == offline.hardwareType)
        #expect(netlink.flags == offline.flags)
        #expect(netlink.masterIndex == offline.masterIndex)
        #expect(netlink.parentIndex == offline.parentIndex)
    }

    // MARK: Namespace guard

    @Test("facts(forInterface:) refuses an entry whose index or MAC belongs to another namespace")
    func namespaceGuard() throws {
        let fixture = try everyKind()
        let reader = SysfsReader(root: fixture.root)
        #expect(reader.facts(forInterface: "wlp0s20f3", index: 2) != nil)
        #expect(reader.facts(forInterface: "wlp0s20f3", index: 2, macAddress: "a4:c3:f0:85:6e:01") != nil)
        #expect(reader.facts(forInterface: "wlp0s20f3", index: 2, macAddress: "A4:C3:F0:85:6E:01") != nil, "MACs compare case-insensitively")
        #expect(reader.facts(forInterface: "wlp0s20f3", index: 99) == nil, "same name, other ifindex: another namespace")
        #expect(reader.facts(forInterface: "wlp0s20f3", macAddress: "02:00:00:00:00:01") == nil, "same name, other MAC")
        #expect(reader.facts(forInterface: "wlp0s20f3", index: 2, macAddress: "02:00:00:00:00:01") == nil)
        #expect(reader.facts(forInterface: "eth0") == nil, "no such interface")
        // No link-layer address in sysfs (raw IP, WireGuard): only the index can be checked.
        #expect(reader.facts(forInterface: "wg0", index: 17, macAddress: nil) != nil)
        #expect(reader.facts(forInterface: "wg0", index: 3) == nil)
    }

    // MARK: Classification

    @Test("classifying offline facts (sysfs only)", arguments: classificationRows)
    func classifiesOffline(_ row: ClassificationRow) throws {
        let fixture = try everyKind()
        let facts = try named(row.name, in: try SysfsReader(root: fixture.root).offlineInterfaces())
        row.offline.check(Classifier().classify(facts), row.name)
    }

    @Test("classifying netlink facts (kind, ARPHRD, flags) plus sysfs", arguments: classificationRows)
    func classifiesNetlink(_ row: ClassificationRow) throws {
        let fixture = try everyKind()
        let facts = try named(row.name, in: fixture.linkFacts())
        row.netlink.check(Classifier().classify(facts), row.name)
    }

    @Test("renamed interfaces are classified by kernel evidence, and the name is only noted")
    func renamedInterfaces() throws {
        let fixture = try everyKind()
        for facts in [try SysfsReader(root: fixture.root).offlineInterfaces(), fixture.linkFacts()] {
            let wifiNamedEth = Classifier().classify(try named("eth1", in: facts))
            #expect(wifiNamedEth.type == .wifi)
            let nameEvidence = try #require(wifiNamedEth.evidence.first { $0.signal == "name" })
            #expect(nameEvidence.suggests == .wired)
            #expect(!nameEvidence.isDecisive)

            let wiredNamedWlan = Classifier().classify(try named("wlan9", in: facts))
            #expect(wiredNamedWlan.type == .wired)
            let wlanEvidence = try #require(wiredNamedWlan.evidence.first { $0.signal == "name" })
            #expect(wlanEvidence.suggests == .wifi)
            #expect(!wlanEvidence.isDecisive)
        }
    }

    @Test("every classification explains itself: one decisive signal, evidence in precedence order")
    func evidenceIsComplete() throws {
        let fixture = try everyKind()
        let wwan = Classifier().classify(try named("wwan0", in: fixture.linkFacts()))
        #expect(wwan.evidence.map(\.signal) == ["ARPHRD", "DEVTYPE", "qmi", "driver", "usb", "device", "name"])
        #expect(wwan.evidence.first { $0.signal == "usb" }?.value == "2c7c:0125")
        #expect(wwan.evidence.first { $0.signal == "qmi" }?.value == "raw_ip=Y")
        #expect(wwan.evidence.first { $0.signal == "ARPHRD" }?.note == "ARPHRD_NONE")
        let iphone = Classifier().classify(try named("enp0s20f0u1c4i2", in: fixture.linkFacts()))
        #expect(iphone.evidence.contains { $0.signal == "cost" && $0.value == "usb Apple tethered phone" })
        #expect(!iphone.expensiveIsOverridden)
    }

    // MARK: Stacking

    /// What `classify(all:)` makes of stacked and aggregate devices.
    static let stackingRows: [ClassificationRow] = [
        // A VLAN carries its lower device's traffic.
        ClassificationRow("wlp0s20f3.100", offline: ExpectedDecision(.wifi, by: "lower", "wlp0s20f3")),
        // A bridge takes its physical ports' transport; a veth port is not physical.
        ClassificationRow("br0", offline: ExpectedDecision(.wired, by: "lower", "enp0s31f6")),
        ClassificationRow("bond0", offline: ExpectedDecision(.wired, by: "lower", "enx0050b6aabbcc")),
        // Only a veth behind it: stays a software bridge.
        ClassificationRow(
            "docker0", offline: ExpectedDecision(.virtual, by: "DEVTYPE", "bridge"), netlink: ExpectedDecision(.virtual, by: "kind", "bridge")),
        // A veth's iflink points at its peer (index 2 here, the Wi-Fi card's index in this namespace):
        // a veth is not stacked, so it must not inherit Wi-Fi.
        ClassificationRow(
            "veth3f2a1b0", offline: ExpectedDecision(.virtual, by: "device", "none"), netlink: ExpectedDecision(.virtual, by: "kind", "veth")),
        // rmnet has a lower device too, but is cellular on its own.
        ClassificationRow(
            "rmnet_data0", offline: ExpectedDecision(.cellular, expensive: true, by: "ARPHRD", "519"),
            netlink: ExpectedDecision(.cellular, expensive: true, by: "kind", "rmnet")),
        ClassificationRow("enp0s31f6", offline: ExpectedDecision(.wired, by: "device", "pci/e1000e")),
    ]

    @Test("classify(all:) lets stacked and aggregate devices take their lower devices' transport", arguments: stackingRows)
    func stacking(_ row: ClassificationRow) throws {
        let fixture = try everyKind()
        let offline = try SysfsReader(root: fixture.root).offlineInterfaces()
        let offlineResult = try #require(Classifier().classify(all: offline)[try named(row.name, in: offline).index])
        row.offline.check(offlineResult, row.name)
        let netlink = fixture.linkFacts()
        let netlinkResult = try #require(Classifier().classify(all: netlink)[try named(row.name, in: netlink).index])
        row.netlink.check(netlinkResult, row.name)
    }

    @Test("classify(all:) leaves every non-virtual interface as classify() decided it")
    func stackingLeavesOthersAlone() throws {
        let fixture = try everyKind()
        let facts = fixture.linkFacts()
        let all = Classifier().classify(all: facts)
        #expect(all.count == facts.count)
        for interface in facts {
            let own = Classifier().classify(interface)
            guard own.type != .virtual else { continue }
            #expect(all[interface.index] == own, "\(interface.name)")
        }
    }

    @Test("a bridge with a wired and a Wi-Fi port has mixed transports and stays virtual")
    func bridgeWithMixedPorts() throws {
        let fixture = try everyKind()
        var facts = fixture.linkFacts()
        let bridge = try named("br0", in: facts)
        let wifiPosition = try #require(facts.firstIndex { $0.name == "eth1" })
        facts[wifiPosition].masterIndex = bridge.index
        let result = try #require(Classifier().classify(all: facts)[bridge.index])
        #expect(result.type == .virtual)
        #expect(result.decidedBy?.signal == "kind")
        let lower = try #require(result.evidence.first { $0.signal == "lower" })
        #expect(lower.value == "enp0s31f6(wired) eth1(wifi)")
        #expect(lower.note == "mixed transports: stays virtual")
        #expect(lower.suggests == nil)
    }

    @Test("a VLAN on a cellular modem inherits its cost as well as its type")
    func stackedCostIsInherited() throws {
        let fixture = try SysfsFixture()
        defer { fixture.remove() }
        try fixture.add([.qmiWWAN(index: 3, rawIP: false), .vlan(name: "wwan0.5", index: 4, parentIndex: 3, macAddress: "9e:1f:44:0b:7a:e2")])
        let result = try #require(Classifier().classify(all: fixture.linkFacts())[4])
        #expect(result.type == .cellular)
        #expect(result.isExpensive)
        #expect(result.decidedBy?.signal == "lower")
    }

    @Test("stacking resolves through several levels: a VLAN on a bond on USB Ethernet is wired")
    func stackingRecurses() throws {
        let fixture = try SysfsFixture()
        defer { fixture.remove() }
        try fixture.add([
            .bond(index: 2),
            FixtureInterface.usbEthernet(index: 3).port(of: "bond0"),
            .vlan(name: "bond0.7", index: 4, parentIndex: 2, macAddress: "00:50:b6:aa:bb:cc"),
        ])
        for facts in [fixture.linkFacts(), try SysfsReader(root: fixture.root).offlineInterfaces()] {
            let result = try #require(Classifier().classify(all: facts)[4])
            #expect(result.type == .wired)
            #expect(result.decidedBy?.signal == "lower")
            #expect(result.decidedBy?.value == "bond0")
        }
    }

    // MARK: Overrides

    @Test("a type override beats kernel evidence; the kernel evidence stays, no longer decisive")
    func typeOverride() throws {
        let fixture = try everyKind()
        let rule = try OverrideRule(parsing: "eth1=wired")
        let result = Classifier(overrides: [rule]).classify(try named("eth1", in: fixture.linkFacts()))
        #expect(result.type == .wired)
        #expect(!result.isExpensive)
        #expect(!result.expensiveIsOverridden)
        #expect(result.decidedBy?.signal == "override")
        #expect(result.decidedBy?.value == "eth1=wired (--override)")
        #expect(result.evidence.first?.signal == "override")
        let devtype = try #require(result.evidence.first { $0.signal == "DEVTYPE" })
        #expect(devtype.suggests == .wifi)
        #expect(!devtype.isDecisive)
        #expect(result.evidence.filter(\.isDecisive).count == 1)
    }

    @Test("an override to a cellular type makes it expensive by default")
    func typeOverrideCarriesDefaultCost() throws {
        let fixture = try everyKind()
        let result = Classifier(overrides: [try OverrideRule(parsing: "enx00e04c680001=cellular")])
            .classify(try named("enx00e04c680001", in: fixture.linkFacts()))
        #expect(result.type == .cellular)
        #expect(result.isExpensive)
        #expect(!result.expensiveIsOverridden)
    }

    @Test("a cost override changes only the cost; the kernel still decides the type")
    func costOverride() throws {
        let fixture = try everyKind()
        let facts = fixture.linkFacts()

        let wifi = Classifier(overrides: [try OverrideRule(parsing: "wlp0s20f3=expensive")]).classify(try named("wlp0s20f3", in: facts))
        #expect(wifi.type == .wifi)
        #expect(wifi.decidedBy?.signal == "DEVTYPE")
        #expect(wifi.isExpensive)
        #expect(wifi.expensiveIsOverridden)
        let costEvidence = try #require(wifi.evidence.last)
        #expect(costEvidence.signal == "override")
        #expect(costEvidence.note == "expensive")
        #expect(!costEvidence.isDecisive)

        // The tethering-driver guess loses to the user.
        let iphone = Classifier(overrides: [try OverrideRule(parsing: "enp0s20f0u1c4i2=inexpensive")])
            .classify(try named("enp0s20f0u1c4i2", in: facts))
        #expect(iphone.type == .wired)
        #expect(!iphone.isExpensive)
        #expect(iphone.expensiveIsOverridden)

        let modems = Classifier(overrides: [try OverrideRule(parsing: "wwan*=inexpensive")])
        for name in ["wwan0", "wwan1", "wwan2", "wwan3"] {
            let result = modems.classify(try named(name, in: facts))
            #expect(result.type == .cellular, "\(name)")
            #expect(!result.isExpensive, "\(name)")
        }
    }

    @Test("type and cost come from the first rule that sets each, separately")
    func typeAndCostRulesAreIndependent() throws {
        let fixture = try everyKind()
        let file = try ConfigurationFile(parsing: """
            # renamed Wi-Fi card
            eth1 = cellular
            eth* = inexpensive
            eth1 = wired, expensive
            """, name: "reach.conf")
        let result = Classifier(overrides: file.rules).classify(try named("eth1", in: fixture.linkFacts()))
        #expect(result.type == .cellular)
        #expect(!result.isExpensive)
        #expect(result.expensiveIsOverridden)
        #expect(result.decidedBy?.value == "eth1=cellular (reach.conf:2)")
        #expect(result.evidence.last?.value == "eth*=inexpensive (reach.conf:3)")
    }

    @Test("an override keeps a stacked device from inheriting, and a cost override survives inheritance")
    func overridesAndStacking() throws {
        let fixture = try everyKind()
        let facts = fixture.linkFacts()
        let vlan = try named("wlp0s20f3.100", in: facts)
        let pinned = Classifier(overrides: [try OverrideRule(parsing: "*.100=virtual")]).classify(all: facts)[vlan.index]
        #expect(pinned?.type == .virtual)
        #expect(pinned?.decidedBy?.signal == "override")

        let bridge = try named("br0", in: facts)
        let costly = Classifier(overrides: [try OverrideRule(parsing: "br0=expensive")]).classify(all: facts)[bridge.index]
        #expect(costly?.type == .wired)
        #expect(costly?.decidedBy?.signal == "lower")
        #expect(costly?.isExpensive == true)
        #expect(costly?.expensiveIsOverridden == true)
    }

    @Test("overrides that match no interface change nothing")
    func unmatchedOverrides() throws {
        let fixture = try everyKind()
        let facts = fixture.linkFacts()
        let rules = [try OverrideRule(parsing: "nothing*=cellular,expensive")]
        for interface in facts {
            #expect(Classifier(overrides: rules).classify(interface) == Classifier().classify(interface), "\(interface.name)")
        }
    }
}

// MARK: - Helpers

private func readLink(_ path: String) -> String? {
    var buffer = [CChar](repeating: 0, count: 4096)
    let count = readlink(path, &buffer, buffer.count - 1)
    guard count > 0 else { return nil }
    return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

private func readText(_ path: String) -> String? {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var buffer = [UInt8](repeating: 0, count: 4096)
    let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
    guard count >= 0 else { return nil }
    return String(decoding: buffer[0..<count], as: UTF8.self)
}

/// `realpath`, for tests that edit a fixture behind its symlinks.
enum FileSystemProbe {
    static func resolve(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
