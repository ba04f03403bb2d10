import ReachabilityCore
import ReachabilityLinux
import ReachabilityTestKit
import Testing

/// USB network functions from phones and modems, laid out as sysfs does, classified by cost.
struct TetheringRow: Sendable, CustomTestStringConvertible {
    var label: String
    var driver: String
    var vendor: String
    var product: String
    var type: InterfaceType
    var expensive: Bool
    var testDescription: String { "\(label) \(vendor):\(product) [\(driver)] -> \(type)\(expensive ? ", expensive" : "")" }
}

private let tetheringRows: [TetheringRow] = [
    TetheringRow(label: "Pixel USB tethering", driver: "rndis_host", vendor: "18d1", product: "4ee4", type: .wired, expensive: true),
    TetheringRow(label: "Pixel NCM tethering", driver: "cdc_ncm", vendor: "18d1", product: "4eeb", type: .wired, expensive: true),
    TetheringRow(label: "Samsung Galaxy tethering", driver: "rndis_host", vendor: "04e8", product: "6863", type: .wired, expensive: true),
    TetheringRow(label: "Xiaomi tethering", driver: "rndis_host", vendor: "2717", product: "ff88", type: .wired, expensive: true),
    TetheringRow(label: "iPhone", driver: "ipheth", vendor: "05ac", product: "12a8", type: .wired, expensive: true),
    TetheringRow(label: "Huawei E3372h HiLink", driver: "cdc_ether", vendor: "12d1", product: "14db", type: .cellular, expensive: true),
    TetheringRow(label: "Quectel in ECM mode", driver: "cdc_ether", vendor: "2c7c", product: "0125", type: .cellular, expensive: true),
    TetheringRow(label: "Realtek RTL8153 adapter", driver: "r8152", vendor: "0bda", product: "8153", type: .wired, expensive: false),
    TetheringRow(label: "ASIX AX88179 adapter", driver: "ax88179_178a", vendor: "0b95", product: "1790", type: .wired, expensive: false),
]

@Suite("Tethered phones and Ethernet-mode modems")
struct TetheringClassificationTests {
    @Test(arguments: tetheringRows)
    func classifiesByUSBIdentity(_ row: TetheringRow) throws {
        let fixture = try SysfsFixture()
        defer { fixture.remove() }
        try fixture.add(.usbEthernet(name: "usb0", index: 5, driver: row.driver, vendor: row.vendor, product: row.product))
        let facts = try #require(try SysfsReader(root: fixture.root).offlineInterfaces().first { $0.name == "usb0" })
        let classification = Classifier().classify(facts)
        #expect(classification.type == row.type, "\(classification.evidence)")
        #expect(classification.isExpensive == row.expensive, "\(classification.evidence)")
        #expect(classification.evidence.contains { $0.signal == "usb" && $0.value == "\(row.vendor):\(row.product)" })
    }

    @Test func aConfigRuleExtendsTheTableForAnUnknownPhone() throws {
        let fixture = try SysfsFixture()
        defer { fixture.remove() }
        try fixture.add(.usbEthernet(name: "usb0", index: 5, driver: "cdc_ether", vendor: "1d6b", product: "0104"))
        let facts = try #require(try SysfsReader(root: fixture.root).offlineInterfaces().first { $0.name == "usb0" })
        #expect(Classifier().classify(facts).isExpensive == false)
        let file = try ConfigurationFile(parsing: "usb:1d6b:0104 = wired, expensive   # my phone\n", name: "reach.conf")
        let classified = Classifier(overrides: file.rules).classify(facts)
        #expect(classified.isExpensive)
        #expect(classified.evidence.contains { $0.signal == "override" && $0.value.contains("usb:1d6b:0104=wired,expensive (reach.conf:1)") })
    }

    @Test func rulesSelectByDriverAndMAC() throws {
        let fixture = try SysfsFixture()
        defer { fixture.remove() }
        try fixture.add(.usbEthernet(name: "usb0", index: 5, driver: "cdc_ether", vendor: "1d6b", product: "0104", macAddress: "02:11:22:33:44:55"))
        let facts = try #require(try SysfsReader(root: fixture.root).offlineInterfaces().first { $0.name == "usb0" })
        let byDriver = Classifier(overrides: [try OverrideRule(parsing: "driver:cdc_*=cellular")]).classify(facts)
        #expect(byDriver.type == .cellular && byDriver.isExpensive)
        let byMAC = Classifier(overrides: [try OverrideRule(parsing: "mac:02:11:22:33:44:55=expensive")]).classify(facts)
        #expect(byMAC.type == .wired && byMAC.isExpensive)
        let otherMAC = Classifier(overrides: [try OverrideRule(parsing: "mac:02:11:22:33:44:56=expensive")]).classify(facts)
        #expect(!otherMAC.isExpensive)
    }
}
