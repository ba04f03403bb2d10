import ReachabilityCore
import Testing

/// One lookup and its expected answer (`role == nil`: no entry applies).
struct USBLookupCase: Sendable, CustomTestStringConvertible {
    var label: String
    var vendor: String
    var product: String?
    var driver: String?
    var role: USBDeviceRole?
    var maker: String?
    var rule: USBVendorMatch.Rule?
    var testDescription: String {
        "\(label): \(vendor):\(product ?? "-") [\(driver ?? "-")] -> \(role.map(\.rawValue) ?? "none")"
    }

    init(
        _ label: String, _ vendor: String, _ product: String?, _ driver: String?, _ role: USBDeviceRole?,
        maker: String? = nil, rule: USBVendorMatch.Rule? = nil
    ) {
        self.label = label
        self.vendor = vendor
        self.product = product
        self.driver = driver
        self.role = role
        self.maker = maker
        self.rule = rule
    }
}

private let builtInLookups: [USBLookupCase] = [
    // Phones, vendor alone, with each tethering driver.
    USBLookupCase("iPhone over ipheth", "05ac", "12a8", "ipheth", .tetheredPhone, maker: "Apple", rule: .vendor),
    USBLookupCase("Pixel RNDIS tethering", "18d1", "4ee3", "rndis_host", .tetheredPhone, maker: "Google", rule: .vendor),
    USBLookupCase("Galaxy RNDIS tethering", "04e8", "6863", "rndis_host", .tetheredPhone, maker: "Samsung", rule: .vendor),
    USBLookupCase("Xiaomi NCM tethering", "2717", "ff88", "cdc_ncm", .tetheredPhone, maker: "Xiaomi", rule: .vendor),
    USBLookupCase("OnePlus, driver unknown", "2a70", nil, nil, .tetheredPhone, maker: "OnePlus", rule: .vendor),
    USBLookupCase("Motorola", "22b8", "2e24", "rndis_host", .tetheredPhone, maker: "Motorola", rule: .vendor),
    USBLookupCase("Sony", "0fce", nil, "rndis_host", .tetheredPhone, rule: .vendor),
    USBLookupCase("LG phone", "1004", "633e", "rndis_host", .tetheredPhone, maker: "LG", rule: .vendor),
    USBLookupCase("HTC", "0bb4", nil, "rndis_host", .tetheredPhone, maker: "HTC", rule: .vendor),
    USBLookupCase("OPPO", "22d9", nil, "cdc_ncm", .tetheredPhone, maker: "OPPO", rule: .vendor),
    USBLookupCase("vivo", "2d95", nil, "rndis_host", .tetheredPhone, maker: "vivo", rule: .vendor),
    USBLookupCase("HMD", "2e04", nil, "rndis_host", .tetheredPhone, rule: .vendor),
    // Driver-only vendors.
    USBLookupCase("Lenovo tablet RNDIS", "17ef", "7a1f", "rndis_host", .tetheredPhone, maker: "Lenovo", rule: .vendorAndDriver),
    USBLookupCase("Lenovo dock via cdc_ether", "17ef", "1234", "cdc_ether", .ethernetAdapter, maker: "Lenovo", rule: .vendorAndDriver),
    USBLookupCase("Lenovo, driver unknown: no vendor-only entry", "17ef", "1234", nil, nil),
    USBLookupCase("Qualcomm-id phone", "05c6", "9024", "rndis_host", .tetheredPhone, maker: "Qualcomm", rule: .vendorAndDriver),
    USBLookupCase("Qualcomm-id modem", "05c6", "9025", "qmi_wwan", .modem, maker: "Qualcomm", rule: .vendorAndDriver),
    USBLookupCase("Qualcomm, driver unknown", "05c6", "9025", nil, nil),
    USBLookupCase("MediaTek Wi-Fi dongle driver is not in the table", "0e8d", "7612", "mt76x2u", nil),
    // Huawei: exact product beats driver, driver beats vendor.
    USBLookupCase("E3372h HiLink", "12d1", "14dc", "cdc_ether", .modem, maker: "Huawei", rule: .product),
    USBLookupCase("E3131 HiLink, any driver", "12d1", "14db", "rndis_host", .modem, maker: "Huawei", rule: .product),
    USBLookupCase("E8372 before mode switch", "12d1", "1f01", nil, .modem, rule: .product),
    USBLookupCase("E3372s stick mode", "12d1", "1506", "huawei_cdc_ncm", .modem, rule: .product),
    USBLookupCase("Huawei phone by product", "12d1", "107e", "rndis_host", .tetheredPhone, rule: .product),
    USBLookupCase("unknown Huawei over rndis_host is a phone", "12d1", "10a0", "rndis_host", .tetheredPhone, maker: "Huawei", rule: .vendorAndDriver),
    USBLookupCase("unknown Huawei over cdc_ncm is a phone", "12d1", "10a0", "cdc_ncm", .tetheredPhone, rule: .vendorAndDriver),
    USBLookupCase("unknown Huawei over cdc_ether is a HiLink modem", "12d1", "1c05", "cdc_ether", .modem, rule: .vendorAndDriver),
    USBLookupCase("unknown Huawei, driver unknown", "12d1", "1c05", nil, .modem, maker: "Huawei", rule: .vendor),
    USBLookupCase("Huawei with an unlisted driver falls back to the vendor", "12d1", "1c05", "usb_storage", .modem, rule: .vendor),
    // ZTE.
    USBLookupCase("ZTE MF833", "19d2", "1405", "cdc_ether", .modem, maker: "ZTE", rule: .product),
    USBLookupCase("ZTE K3806-Z", "19d2", "1015", "cdc_ether", .modem, rule: .product),
    USBLookupCase("ZTE WWAN module over rndis_host", "19d2", "1500", "rndis_host", .modem, rule: .vendorAndDriver),
    USBLookupCase("ZTE phone over cdc_ncm", "19d2", "ffce", "cdc_ncm", .tetheredPhone, maker: "ZTE", rule: .vendorAndDriver),
    USBLookupCase("ZTE, driver unknown", "19d2", "ffff", nil, .modem, rule: .vendor),
    // Other modem makers.
    USBLookupCase("Quectel EC25 in ECM mode", "2c7c", "0125", "cdc_ether", .modem, maker: "Quectel", rule: .vendor),
    USBLookupCase("Sierra EM7455", "1199", "9079", "qmi_wwan", .modem, rule: .vendor),
    USBLookupCase("Telit LE910", "1bc7", "1201", "cdc_ether", .modem, rule: .vendor),
    USBLookupCase("Fibocom", "2cb7", "0104", "cdc_ncm", .modem, rule: .vendor),
    USBLookupCase("u-blox TOBY-L2", "1546", "1143", "cdc_ether", .modem, rule: .vendor),
    USBLookupCase("Netgear LTE modem", "0846", "68e1", "rndis_host", .modem, maker: "Netgear", rule: .vendor),
    USBLookupCase("Alcatel LinkKey", "1bbb", "0195", "cdc_ether", .modem, rule: .vendor),
    USBLookupCase("Franklin", "1fac", "0232", "rndis_host", .modem, rule: .vendor),
    USBLookupCase("Novatel USB730L", "1410", "9030", "rndis_host", .modem, rule: .vendor),
    USBLookupCase("Dell DW5580", "413c", "81ba", "cdc_ether", .modem, maker: "Dell", rule: .product),
    USBLookupCase("Dell, other product: not in the table", "413c", "2107", "cdc_ether", nil),
    USBLookupCase("LG VL600 by product", "1004", "61aa", "cdc_ether", .modem, maker: "LG", rule: .product),
    USBLookupCase("LG modem by driver, written with a dash", "1004", "6100", "lg-vl600", .modem, rule: .vendorAndDriver),
    // Ethernet adapters.
    USBLookupCase("Realtek RTL8153", "0bda", "8153", "r8152", .ethernetAdapter, maker: "Realtek", rule: .vendor),
    USBLookupCase("Realtek in ECM mode", "0bda", "8153", "cdc_ether", .ethernetAdapter, rule: .vendor),
    USBLookupCase("ASIX AX88179", "0b95", "1790", "ax88179_178a", .ethernetAdapter, maker: "ASIX", rule: .vendor),
    USBLookupCase("SMSC LAN9514", "0424", "ec00", "smsc95xx", .ethernetAdapter, rule: .vendor),
    USBLookupCase("Apple USB Ethernet Adapter", "05ac", "1402", "asix", .ethernetAdapter, maker: "Apple", rule: .product),
    USBLookupCase("Apple adapter, unlisted product, asix", "05ac", "1403", "asix", .ethernetAdapter, rule: .vendorAndDriver),
    USBLookupCase("Samsung adapter by product", "04e8", "a101", "r8152", .ethernetAdapter, maker: "Samsung", rule: .product),
    USBLookupCase("Samsung id on an r8152 chip: the driver rule beats the phone vendor", "04e8", "a102", "r8152", .ethernetAdapter, maker: "Samsung", rule: .ethernetDriver),
    USBLookupCase("Google id on an ax88179 chip", "18d1", "9999", "ax88179_178a", .ethernetAdapter, maker: "Google", rule: .ethernetDriver),
    USBLookupCase("unknown vendor on an Ethernet chip driver", "abcd", "0001", "r8152", .ethernetAdapter, maker: "unknown maker", rule: .ethernetDriver),
    USBLookupCase("Lenovo dock by product", "17ef", "a387", "r8152", .ethernetAdapter, rule: .product),
    USBLookupCase("Lenovo dock, unlisted product, r8152", "17ef", "721e", "r8152", .ethernetAdapter, rule: .vendorAndDriver),
    USBLookupCase("Microsoft Surface adapter", "045e", "07c6", "r8152", .ethernetAdapter, maker: "Microsoft", rule: .vendorAndDriver),
    USBLookupCase("Netgear FA120", "0846", "1040", "asix", .ethernetAdapter, maker: "Netgear", rule: .vendorAndDriver),
    USBLookupCase("NVIDIA Tegra adapter", "0955", "09ff", "cdc_ether", .ethernetAdapter, rule: .product),
    // Unknown and malformed.
    USBLookupCase("unknown vendor, class driver", "abcd", "0001", "rndis_host", nil),
    USBLookupCase("unknown vendor, no driver", "abcd", nil, nil, nil),
    USBLookupCase("malformed vendor", "zzzz", nil, "rndis_host", nil),
    USBLookupCase("too long vendor", "112d1", nil, "rndis_host", nil),
    USBLookupCase("empty vendor", "", nil, "r8152", nil),
    // Normalization.
    USBLookupCase("upper case", "12D1", "14DC", "cdc_ether", .modem, rule: .product),
    USBLookupCase("0x prefix and spaces", " 0x12d1 ", "0x14dc", "CDC_ETHER", .modem, rule: .product),
    USBLookupCase("short ids are zero-padded", "5ac", "1402", "asix", .ethernetAdapter, rule: .product),
    USBLookupCase("malformed product is ignored", "12d1", "hilink", "rndis_host", .tetheredPhone, rule: .vendorAndDriver),
    USBLookupCase("empty driver is no driver", "12d1", nil, "", .modem, rule: .vendor),
]

/// A lookup with user entries.
struct USBExtraCase: Sendable, CustomTestStringConvertible {
    var label: String
    var extra: [USBVendorEntry]
    var vendor: String
    var product: String?
    var driver: String?
    var role: USBDeviceRole?
    var isUserEntry: Bool
    var rule: USBVendorMatch.Rule?
    var testDescription: String { label }
}

private let extraCases: [USBExtraCase] = [
    USBExtraCase(
        label: "a user vendor-only entry beats a built-in exact entry",
        extra: [USBVendorEntry(vendor: "12d1", role: .tetheredPhone, maker: "My Huawei")],
        vendor: "12d1", product: "14dc", driver: "cdc_ether", role: .tetheredPhone, isUserEntry: true, rule: .vendor),
    USBExtraCase(
        label: "a user entry for an unknown vendor",
        extra: [USBVendorEntry(vendor: "1e0f", role: .modem, maker: "Acme LTE")],
        vendor: "1e0f", product: "0001", driver: "cdc_ether", role: .modem, isUserEntry: true, rule: .vendor),
    USBExtraCase(
        label: "a user entry that does not apply leaves the built-in answer",
        extra: [USBVendorEntry(vendor: "12d1", product: "9999", role: .ethernetAdapter, maker: "Other")],
        vendor: "12d1", product: "14dc", driver: "cdc_ether", role: .modem, isUserEntry: false, rule: .product),
    USBExtraCase(
        label: "user exact beats user vendor+driver beats user vendor-only",
        extra: [
            USBVendorEntry(vendor: "2c7c", role: .ethernetAdapter, maker: "A"),
            USBVendorEntry(vendor: "2c7c", drivers: ["cdc_ether"], role: .tetheredPhone, maker: "B"),
            USBVendorEntry(vendor: "2c7c", product: "0125", role: .modem, maker: "C"),
        ],
        vendor: "2c7c", product: "0125", driver: "cdc_ether", role: .modem, isUserEntry: true, rule: .product),
    USBExtraCase(
        label: "user vendor+driver beats user vendor-only",
        extra: [
            USBVendorEntry(vendor: "2c7c", role: .ethernetAdapter, maker: "A"),
            USBVendorEntry(vendor: "2c7c", drivers: ["cdc_ether"], role: .tetheredPhone, maker: "B"),
        ],
        vendor: "2c7c", product: "0800", driver: "cdc_ether", role: .tetheredPhone, isUserEntry: true, rule: .vendorAndDriver),
    USBExtraCase(
        label: "a user entry beats the Ethernet driver rule",
        extra: [USBVendorEntry(vendor: "04e8", drivers: ["r8152"], role: .tetheredPhone, maker: "Odd")],
        vendor: "04e8", product: "a102", driver: "r8152", role: .tetheredPhone, isUserEntry: true, rule: .vendorAndDriver),
    USBExtraCase(
        label: "user exact entries with drivers need the driver",
        extra: [USBVendorEntry(vendor: "12d1", product: "14dc", drivers: ["rndis_host"], role: .tetheredPhone, maker: "X")],
        vendor: "12d1", product: "14dc", driver: "cdc_ether", role: .modem, isUserEntry: false, rule: .product),
    USBExtraCase(
        label: "an exact entry with a matching driver beats one without",
        extra: [
            USBVendorEntry(vendor: "12d1", product: "14dc", role: .modem, maker: "X"),
            USBVendorEntry(vendor: "12d1", product: "14dc", drivers: ["rndis_host"], role: .tetheredPhone, maker: "Y"),
        ],
        vendor: "12d1", product: "14dc", driver: "rndis_host", role: .tetheredPhone, isUserEntry: true, rule: .product),
    USBExtraCase(
        label: "user entries are normalized",
        extra: [USBVendorEntry(vendor: "0X1E0F", product: "1", drivers: ["CDC-ETHER"], role: .modem, maker: "Acme")],
        vendor: "1e0f", product: "0001", driver: "cdc_ether", role: .modem, isUserEntry: true, rule: .product),
    USBExtraCase(
        label: "a malformed user vendor never matches", extra: [USBVendorEntry(vendor: "acme", role: .modem, maker: "Acme")],
        vendor: "abcd", product: nil, driver: nil, role: nil, isUserEntry: false, rule: nil),
]

@Suite("USB vendor table")
struct USBVendorTableTests {
    @Test("built-in lookups and precedence", arguments: builtInLookups)
    func lookup(_ row: USBLookupCase) {
        let match = USBVendorTable.match(vendor: row.vendor, product: row.product, driver: row.driver)
        #expect(match?.role == row.role)
        #expect(USBVendorTable.role(vendor: row.vendor, product: row.product, driver: row.driver)?.role == row.role)
        if let maker = row.maker { #expect(match?.entry.maker == maker) }
        if let rule = row.rule { #expect(match?.rule == rule) }
        #expect(match?.isUserEntry != true)
    }

    @Test("user entries", arguments: extraCases)
    func extra(_ row: USBExtraCase) {
        let match = USBVendorTable.match(vendor: row.vendor, product: row.product, driver: row.driver, extra: row.extra)
        #expect(match?.role == row.role)
        #expect(match?.rule == row.rule)
        if row.role != nil { #expect(match?.isUserEntry == row.isUserEntry) }
        #expect(
            USBVendorTable.role(vendor: row.vendor, product: row.product, driver: row.driver, extra: row.extra)?.role == row.role)
    }

    @Test("every built-in entry answers for its own key", arguments: USBVendorTable.entries)
    func selfConsistent(_ entry: USBVendorEntry) throws {
        let drivers: [String?] = entry.drivers.map { $0.sorted().map { Optional($0) } } ?? [nil]
        for driver in drivers {
            let match = try #require(USBVendorTable.match(vendor: entry.vendor, product: entry.product, driver: driver))
            #expect(match.entry == entry, "\(entry) answered by \(match.entry)")
            #expect(match.rule == entry.rule)
        }
    }

    @Test("ids are four lower-case hex digits; driver sets are normalized and non-empty")
    func wellFormed() {
        for entry in USBVendorTable.entries {
            #expect(USBVendorTable.normalizedID(entry.vendor) == entry.vendor, "\(entry)")
            if let product = entry.product { #expect(USBVendorTable.normalizedID(product) == product, "\(entry)") }
            if let drivers = entry.drivers {
                #expect(!drivers.isEmpty)
                #expect(drivers.allSatisfy { USBVendorTable.normalizedDriver($0) == $0 }, "\(entry)")
            }
            #expect(!entry.maker.isEmpty)
        }
    }

    @Test("no two built-in entries overlap at the same level")
    func noOverlap() {
        let entries = USBVendorTable.entries
        for (i, a) in entries.enumerated() {
            for b in entries[(i + 1)...] where a.vendor == b.vendor && a.product == b.product {
                switch (a.drivers, b.drivers) {
                case (nil, nil): Issue.record("duplicate \(a) / \(b)")
                case (let x?, let y?): #expect(x.isDisjoint(with: y), "\(a) overlaps \(b)")
                default: break
                }
            }
        }
    }

    @Test("vendors in more than one role are disambiguated")
    func sharedVendors() {
        let byVendor = Dictionary(grouping: USBVendorTable.entries, by: \.vendor)
        let shared = byVendor.filter { Set($0.value.map(\.role)).count > 1 }
        // Huawei and ZTE make phones and modems; Apple, Samsung, Lenovo, Qualcomm, LG and
        // Netgear span two roles too.
        #expect(Set(shared.keys).isSuperset(of: ["12d1", "19d2", "05ac", "04e8", "17ef", "05c6", "1004", "0846"]))
        for (vendor, entries) in shared {
            // At most one vendor-only fallback, and every other role is narrowed by product or driver.
            let vendorOnly = entries.filter { $0.rule == .vendor }
            #expect(vendorOnly.count <= 1, "\(vendor)")
            let narrowed = entries.filter { $0.rule != .vendor }
            let fallbackRole = vendorOnly.first?.role
            #expect(Set(entries.map(\.role)).subtracting([fallbackRole].compactMap { $0 }).allSatisfy { role in
                narrowed.contains { $0.role == role }
            }, "\(vendor)")
        }
    }

    @Test("the brief's makers are present", arguments: [
        ("05ac", USBDeviceRole.tetheredPhone), ("18d1", .tetheredPhone), ("04e8", .tetheredPhone), ("2717", .tetheredPhone),
        ("2a70", .tetheredPhone), ("22b8", .tetheredPhone), ("0fce", .tetheredPhone), ("1004", .tetheredPhone),
        ("0bb4", .tetheredPhone), ("12d1", .modem), ("19d2", .modem), ("2c7c", .modem), ("1199", .modem),
        ("1bc7", .modem), ("2cb7", .modem), ("1546", .modem), ("0846", .modem), ("1bbb", .modem), ("1fac", .modem),
        ("0bda", .ethernetAdapter), ("0b95", .ethernetAdapter), ("0424", .ethernetAdapter),
    ])
    func makers(_ vendor: String, _ role: USBDeviceRole) {
        #expect(USBVendorTable.entries.contains { $0.vendor == vendor && $0.rule == .vendor && $0.role == role })
    }

    @Test("roles: cost and transport")
    func roles() {
        #expect(USBDeviceRole.tetheredPhone.isExpensive)
        #expect(USBDeviceRole.modem.isExpensive)
        #expect(!USBDeviceRole.ethernetAdapter.isExpensive)
        #expect(USBDeviceRole.modem.suggestedType == .cellular)
        #expect(USBDeviceRole.tetheredPhone.suggestedType == .wired)
        #expect(USBDeviceRole.ethernetAdapter.suggestedType == .wired)
        #expect(USBDeviceRole.ethernetAdapter.summary == "USB Ethernet adapter")
    }

    @Test("id normalization", arguments: [
        ("12d1", "12d1"), ("12D1", "12d1"), ("0x12d1", "12d1"), ("0X5AC", "05ac"), (" 1 ", "0001"), ("5ac\n", "05ac"),
        ("", nil), ("0x", nil), ("12345", nil), ("12g1", nil), ("-1", nil), ("１２", nil),
    ] as [(String, String?)])
    func normalization(_ input: String, _ expected: String?) {
        #expect(USBVendorTable.normalizedID(input) == expected)
    }

    @Test("evidence text")
    func evidence() throws {
        let match = try #require(USBVendorTable.match(vendor: "12d1", product: "14dc", driver: "cdc_ether"))
        #expect(match.description == "USB modem: Huawei E3372 HiLink (cdc_ether, usb_modeswitch target) (12d1:14dc, by vendor:product)")
        let entry = USBVendorEntry(vendor: "12d1", product: "14db", drivers: ["cdc_ether"], role: .modem, maker: "Huawei", note: "E3131")
        #expect(entry.description == "12d1:14db [cdc_ether] -> modem (Huawei: E3131)")
        let user = try #require(USBVendorTable.match(
            vendor: "1e0f", product: nil, driver: nil, extra: [USBVendorEntry(vendor: "1e0f", role: .modem, maker: "Acme")]))
        #expect(user.description == "USB modem: Acme (1e0f, by vendor, user entry)")
    }
}
