/// What a USB network device behind an Ethernet-like interface is, from its USB ids and driver.
///
/// A tethered phone and a LTE stick in "HiLink" mode both appear as `ARPHRD_ETHER` interfaces
/// driven by a generic class driver (`rndis_host`, `cdc_ncm`, `cdc_ether`, or `ipheth` for
/// iPhones), usually without `DEVTYPE=wwan` (see `anchors.md` §2.2: the kernel's attempt to flag
/// RNDIS modems as WWAN caught Android tethering and was reverted). Their USB vendor id is
/// then the best signal left. This table maps ids to a ``USBDeviceRole``; it is a heuristic and
/// users can extend or override it (see ``USBVendorTable/match(vendor:product:driver:extra:)``).
///
/// Consult it for interfaces whose driver is one of those class drivers or a USB Ethernet chip
/// driver; do not let it override stronger signals (`DEVTYPE=wlan`, `phy80211`): several
/// makers here also sell USB Wi-Fi adapters under the same vendor id.
public enum USBDeviceRole: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// A phone (or cellular tablet) sharing its mobile data over USB: expensive.
    case tetheredPhone
    /// A cellular modem or LTE stick presenting an Ethernet-like interface: cellular, expensive.
    case modem
    /// A plain USB Ethernet adapter or dock: wired, inexpensive.
    case ethernetAdapter

    /// Whether traffic through such a device is normally paid for by volume.
    public var isExpensive: Bool {
        switch self {
        case .tetheredPhone, .modem: true
        case .ethernetAdapter: false
        }
    }

    /// The transport the classifier can report: a modem is cellular; a tethered phone is a wired
    /// link to the host whose cost is the phone's mobile data (as `ipheth` is treated, and as
    /// Apple reports USB tethering: wired and expensive); an adapter is wired.
    public var suggestedType: InterfaceType {
        switch self {
        case .tetheredPhone, .ethernetAdapter: .wired
        case .modem: .cellular
        }
    }

    /// Words for evidence: `tethered phone`, `USB modem`, `USB Ethernet adapter`.
    public var summary: String {
        switch self {
        case .tetheredPhone: "tethered phone"
        case .modem: "USB modem"
        case .ethernetAdapter: "USB Ethernet adapter"
        }
    }

    public var description: String { rawValue }
}

/// One row of the table: a vendor id, optionally narrowed to a product id and/or drivers.
public struct USBVendorEntry: Sendable, Hashable, CustomStringConvertible {
    /// USB `idVendor`, four lower-case hex digits.
    public var vendor: String
    /// USB `idProduct`, four lower-case hex digits, or `nil` for any product.
    public var product: String?
    /// Kernel driver names (basename of `device/driver`, `-` written `_`), or `nil` for any.
    public var drivers: Set<String>?
    /// What a device matching this row is.
    public var role: USBDeviceRole
    /// The maker, for evidence.
    public var maker: String
    /// The model or the reason for the entry, with its source.
    public var note: String?

    /// Ids are normalized (`0x12D1` → `12d1`, `5ac` → `05ac`); an id that is not 1–4 hex digits
    /// is kept lower-cased and will never match. An empty product means any product; driver
    /// names are lower-cased with `-` written `_`, and an empty set means any driver.
    public init(
        vendor: String, product: String? = nil, drivers: Set<String>? = nil, role: USBDeviceRole, maker: String,
        note: String? = nil
    ) {
        self.vendor = USBVendorTable.normalizedID(vendor) ?? vendor.lowercased()
        let trimmedProduct = product.flatMap { $0.isEmpty ? nil : $0 }
        self.product = trimmedProduct.map { USBVendorTable.normalizedID($0) ?? $0.lowercased() }
        let normalizedDrivers = drivers.map { Set($0.map(USBVendorTable.normalizedDriver)) }
        self.drivers = normalizedDrivers.flatMap { $0.isEmpty ? nil : $0 }
        self.role = role
        self.maker = maker
        self.note = note
    }

    /// How specific the entry is; the more specific rule wins.
    public var rule: USBVendorMatch.Rule {
        if product != nil { return .product }
        if drivers != nil { return .vendorAndDriver }
        return .vendor
    }

    /// `12d1:14db [cdc_ether] -> modem (Huawei: E3372h HiLink)`.
    public var description: String {
        var text = vendor
        if let product { text += ":" + product }
        if let drivers { text += " [" + drivers.sorted().joined(separator: ",") + "]" }
        text += " -> \(role) (\(maker)"
        if let note { text += ": " + note }
        return text + ")"
    }

    /// Whether the entry applies to normalized ids and driver.
    func applies(vendor: String, product: String?, driver: String?) -> Bool {
        guard self.vendor == vendor else { return false }
        if let own = self.product, own != product { return false }
        if let drivers {
            guard let driver, drivers.contains(driver) else { return false }
        }
        return true
    }
}

/// The answer of a lookup: the entry and which rule found it.
public struct USBVendorMatch: Sendable, Hashable, CustomStringConvertible {
    /// The precedence levels, strongest last (`Comparable` by strength).
    public enum Rule: Int, Sendable, Hashable, Comparable, CustomStringConvertible {
        /// The vendor alone.
        case vendor = 0
        /// The driver binds only Ethernet controller chips (``USBVendorTable/ethernetAdapterDrivers``).
        case ethernetDriver = 1
        /// The vendor with the bound driver.
        case vendorAndDriver = 2
        /// The exact vendor:product (and driver, when the entry lists drivers).
        case product = 3

        public static func < (lhs: Rule, rhs: Rule) -> Bool { lhs.rawValue < rhs.rawValue }

        public var description: String {
            switch self {
            case .vendor: "vendor"
            case .ethernetDriver: "Ethernet chip driver"
            case .vendorAndDriver: "vendor and driver"
            case .product: "vendor:product"
            }
        }
    }

    /// The table row that matched.
    public var entry: USBVendorEntry
    /// Which precedence level found it: how specific the match is.
    public var rule: Rule
    /// Found among the caller's `extra` entries rather than the built-in table.
    public var isUserEntry: Bool

    /// A match of `entry` at level `rule`.
    public init(entry: USBVendorEntry, rule: Rule, isUserEntry: Bool) {
        self.entry = entry
        self.rule = rule
        self.isUserEntry = isUserEntry
    }

    /// What the device is: the matched entry's role.
    public var role: USBDeviceRole { entry.role }

    /// `USB modem: Huawei E3372h HiLink (12d1:14db, by vendor:product)`.
    public var description: String {
        var ids = entry.vendor
        if let product = entry.product { ids += ":" + product }
        let what = [entry.maker, entry.note].compactMap { $0 }.joined(separator: " ")
        return "\(entry.role.summary): \(what) (\(ids), by \(rule)\(isUserEntry ? ", user entry" : ""))"
    }
}

/// USB vendor and product ids of phones, modems and Ethernet adapters.
///
/// ## Precedence
///
/// ``match(vendor:product:driver:extra:)`` tries, in order, and returns the first hit:
///
/// 1. the caller's `extra` entries (from a configuration file), by the rules below (exact
///    vendor:product, then vendor and driver, then vendor alone): a user's entry for a vendor
///    wins over any built-in entry, even a more specific one;
/// 2. a built-in exact vendor:product entry (an entry that also lists drivers needs the driver
///    to match, and is preferred over one that does not);
/// 3. a built-in vendor and driver entry;
/// 4. a driver in ``ethernetAdapterDrivers`` (r8152, asix, …): those drivers bind only Ethernet
///    controller chips, so the device is an adapter whatever its vendor (Samsung, Apple and
///    Lenovo sell such adapters under their phone vendor ids). The answer is a synthesized
///    entry with rule ``USBVendorMatch/Rule/ethernetDriver``, or the vendor's own entry (rule
///    ``USBVendorMatch/Rule/vendor``) when that already says Ethernet adapter;
/// 5. a built-in vendor-only entry.
///
/// Within one level the first entry in table order wins; the built-in table has no overlaps.
///
/// ## Vendors in more than one role
///
/// - Huawei `12d1` and ZTE `19d2` make phones and modems. Known modem products are listed
///   exactly. Then by driver: Huawei HiLink sticks use `cdc_ether` (the kernel flags Huawei
///   ECM functions with vendor protocol 255 as WWAN in cdc_ether.c) and `huawei_cdc_ncm`;
///   Huawei phones tether with `rndis_host` or `cdc_ncm`. ZTE's `rndis_host` functions are
///   modems ("ZTE WWAN modules" in rndis_host.c) and its `cdc_ether` ones too ("ZTE modules",
///   cdc_ether.c); ZTE phones are recognised by `cdc_ncm` (Android's NCM tethering). Alone, both
///   vendors read as modem. Either answer is expensive.
/// - Lenovo `17ef`, Qualcomm `05c6`, MediaTek `0e8d` and Asus `0b05` are decided by driver
///   only (docks and Wi-Fi dongles share those ids), so they have no vendor-only entry.
/// - Apple `05ac` and Samsung `04e8` are phones unless the driver or product says adapter.
///
/// ## Sources
///
/// Vendor ids as listed in the usb.ids database (linux-usb.org). Product ids and driver
/// behaviour from the Linux drivers named on each entry (`drivers/net/usb/cdc_ether.c`,
/// `rndis_host.c`, `r8152.c`, `asix_devices.c`, `huawei_cdc_ncm.c`, `lg-vl600.c`, `ipheth.c`),
/// from usb_modeswitch's device data (HiLink target ids) and ModemManager's vendor plugins.
/// This is a heuristic: verify new entries on real devices, and prefer user entries to edits.
public enum USBVendorTable {
    /// Drivers that bind only USB Ethernet controller chips (never a phone's or modem's network
    /// function), so their device is an Ethernet adapter or dock.
    public static let ethernetAdapterDrivers: Set<String> = [
        "r8152", "r8153_ecm", "rtl8150", "asix", "ax88179_178a", "ax88172a", "aqc111", "smsc75xx", "smsc95xx",
        "lan78xx", "dm9601", "sr9700", "sr9800", "mcs7830", "pegasus", "catc", "kaweth", "ch9200",
    ]

    /// Generic class drivers a phone's USB tethering or a HiLink modem binds to (plus `ipheth`).
    public static let tetheringClassDrivers: Set<String> = ["rndis_host", "cdc_ncm", "cdc_ether", "ipheth"]

    /// The built-in table. Ids are four lower-case hex digits.
    public static let entries: [USBVendorEntry] = phones + modems + adapters

    // MARK: Phones

    /// Phone makers whose USB tethering means a phone's mobile data. Vendor ids: usb.ids.
    static let phones: [USBVendorEntry] = [
        // Apple: iPhone and cellular iPad tethering through ipheth (iOS 17+ may also offer NCM).
        USBVendorEntry(vendor: "05ac", role: .tetheredPhone, maker: "Apple", note: "iPhone/iPad (ipheth)"),
        USBVendorEntry(vendor: "18d1", role: .tetheredPhone, maker: "Google", note: "Pixel/Nexus; 4ee3/4ee4 are the RNDIS tethering ids"),
        USBVendorEntry(vendor: "04e8", role: .tetheredPhone, maker: "Samsung", note: "Galaxy; 6863 is the RNDIS tethering id"),
        USBVendorEntry(vendor: "2717", role: .tetheredPhone, maker: "Xiaomi"),
        USBVendorEntry(vendor: "2a70", role: .tetheredPhone, maker: "OnePlus"),
        USBVendorEntry(vendor: "22b8", role: .tetheredPhone, maker: "Motorola"),
        USBVendorEntry(vendor: "0fce", role: .tetheredPhone, maker: "Sony (Ericsson)", note: "Xperia"),
        USBVendorEntry(vendor: "1004", role: .tetheredPhone, maker: "LG"),
        USBVendorEntry(vendor: "0bb4", role: .tetheredPhone, maker: "HTC", note: "also used by some MediaTek-based Android devices"),
        USBVendorEntry(vendor: "22d9", role: .tetheredPhone, maker: "OPPO", note: "also realme and recent OnePlus"),
        USBVendorEntry(vendor: "2d95", role: .tetheredPhone, maker: "vivo"),
        USBVendorEntry(vendor: "2e04", role: .tetheredPhone, maker: "HMD Global", note: "Nokia-branded Android phones"),
        USBVendorEntry(vendor: "0421", role: .tetheredPhone, maker: "Nokia"),
        USBVendorEntry(vendor: "2a45", role: .tetheredPhone, maker: "Meizu"),
        USBVendorEntry(vendor: "0fca", role: .tetheredPhone, maker: "BlackBerry"),
        USBVendorEntry(vendor: "0482", role: .tetheredPhone, maker: "Kyocera"),
        USBVendorEntry(vendor: "2ae5", role: .tetheredPhone, maker: "Fairphone"),
        // Shared ids, decided by driver only.
        USBVendorEntry(vendor: "17ef", drivers: ["rndis_host", "cdc_ncm"], role: .tetheredPhone, maker: "Lenovo", note: "phones and tablets; docks use r8152/cdc_ether"),
        USBVendorEntry(vendor: "0b05", drivers: ["rndis_host", "cdc_ncm"], role: .tetheredPhone, maker: "ASUS", note: "ZenFone/ROG Phone"),
        USBVendorEntry(vendor: "0e8d", drivers: ["rndis_host", "cdc_ncm"], role: .tetheredPhone, maker: "MediaTek", note: "generic MediaTek-based phones; the id is also on MediaTek Wi-Fi dongles"),
        USBVendorEntry(vendor: "05c6", drivers: ["rndis_host", "cdc_ncm"], role: .tetheredPhone, maker: "Qualcomm", note: "reference-id Android phones (RNDIS + ADB)"),
        // Phone makers that also make modems: phones by driver or product.
        USBVendorEntry(vendor: "12d1", drivers: ["rndis_host", "cdc_ncm"], role: .tetheredPhone, maker: "Huawei", note: "phones tether with RNDIS or NCM"),
        USBVendorEntry(vendor: "12d1", product: "107e", role: .tetheredPhone, maker: "Huawei", note: "P10 smartphone (usb.ids)"),
        USBVendorEntry(vendor: "19d2", drivers: ["cdc_ncm"], role: .tetheredPhone, maker: "ZTE", note: "phones tethering with NCM"),
    ]

    // MARK: Modems

    /// Modem makers whose sticks and modules can present an Ethernet-like interface.
    static let modems: [USBVendorEntry] = [
        USBVendorEntry(vendor: "12d1", role: .modem, maker: "Huawei", note: "USB modems and HiLink sticks"),
        USBVendorEntry(vendor: "12d1", drivers: ["cdc_ether", "huawei_cdc_ncm", "qmi_wwan", "cdc_mbim", "option"], role: .modem, maker: "Huawei", note: "HiLink sticks use cdc_ether; stick mode uses huawei_cdc_ncm"),
        USBVendorEntry(vendor: "12d1", product: "14db", role: .modem, maker: "Huawei", note: "E3131/E353/E8372h HiLink (cdc_ether, usb_modeswitch target)"),
        USBVendorEntry(vendor: "12d1", product: "14dc", role: .modem, maker: "Huawei", note: "E3372 HiLink (cdc_ether, usb_modeswitch target)"),
        USBVendorEntry(vendor: "12d1", product: "1f01", role: .modem, maker: "Huawei", note: "E3372/E8372/E353 before mode switch (mass storage id)"),
        USBVendorEntry(vendor: "12d1", product: "14fe", role: .modem, maker: "Huawei", note: "E3372 before mode switch (mass storage id)"),
        USBVendorEntry(vendor: "12d1", product: "1506", role: .modem, maker: "Huawei", note: "E3372s/E3276 stick mode (huawei_cdc_ncm)"),
        USBVendorEntry(vendor: "12d1", product: "15c1", role: .modem, maker: "Huawei", note: "ME906/ME909 module (cdc_ether, flagged WWAN)"),
        USBVendorEntry(vendor: "19d2", role: .modem, maker: "ZTE", note: "USB modems, MiFi and HiLink-style sticks"),
        USBVendorEntry(vendor: "19d2", drivers: ["cdc_ether", "rndis_host", "qmi_wwan", "cdc_mbim", "option"], role: .modem, maker: "ZTE", note: "ZTE modules in cdc_ether.c; \"ZTE WWAN modules\" in rndis_host.c"),
        USBVendorEntry(vendor: "19d2", product: "1405", role: .modem, maker: "ZTE", note: "MF823/MF831/MF833 (cdc_ether)"),
        USBVendorEntry(vendor: "19d2", product: "1003", role: .modem, maker: "ZTE", note: "Vodafone K3805-Z (cdc_ether, flagged WWAN)"),
        USBVendorEntry(vendor: "19d2", product: "1015", role: .modem, maker: "ZTE", note: "Vodafone K3806-Z (cdc_ether, flagged WWAN)"),
        USBVendorEntry(vendor: "19d2", product: "1173", role: .modem, maker: "ZTE", note: "Vodafone K4510-Z (cdc_ether, flagged WWAN)"),
        USBVendorEntry(vendor: "19d2", product: "1177", role: .modem, maker: "ZTE", note: "Vodafone K3770-Z (cdc_ether, flagged WWAN)"),
        USBVendorEntry(vendor: "19d2", product: "1181", role: .modem, maker: "ZTE", note: "Vodafone K3772-Z (cdc_ether, flagged WWAN)"),
        USBVendorEntry(vendor: "2c7c", role: .modem, maker: "Quectel", note: "EC2x/EG25/EM05/RM5xx; ECM mode uses cdc_ether"),
        USBVendorEntry(vendor: "1199", role: .modem, maker: "Sierra Wireless"),
        USBVendorEntry(vendor: "1bc7", role: .modem, maker: "Telit", note: "cdc_ether flags all Telit ECM functions WWAN"),
        USBVendorEntry(vendor: "2cb7", role: .modem, maker: "Fibocom"),
        USBVendorEntry(vendor: "1546", role: .modem, maker: "u-blox", note: "TOBY-L2/SARA-U2/LARA-R6 flagged WWAN in cdc_ether"),
        USBVendorEntry(vendor: "0846", role: .modem, maker: "Netgear", note: "AirCard/LTE modems; Netgear USB Ethernet adapters use asix"),
        USBVendorEntry(vendor: "1bbb", role: .modem, maker: "Alcatel/TCL (T&A Mobile Phones)", note: "LinkKey sticks; TCL phones share the id"),
        USBVendorEntry(vendor: "1fac", role: .modem, maker: "Franklin Wireless"),
        USBVendorEntry(vendor: "1410", role: .modem, maker: "Novatel Wireless", note: "USB730L and MiFi (rndis_host)"),
        USBVendorEntry(vendor: "0af0", role: .modem, maker: "Option"),
        USBVendorEntry(vendor: "1e2d", role: .modem, maker: "Cinterion (Gemalto/Thales)", note: "PLS8/AHS3/PLS62/PLS83 flagged WWAN in cdc_ether"),
        USBVendorEntry(vendor: "1e0e", role: .modem, maker: "SIMCom", note: "SIM7xxx modules"),
        USBVendorEntry(vendor: "1c9e", role: .modem, maker: "Longcheer", note: "white-label 3G/4G sticks"),
        USBVendorEntry(vendor: "106c", role: .modem, maker: "Pantech"),
        USBVendorEntry(vendor: "05c6", drivers: ["qmi_wwan", "cdc_mbim", "cdc_ether", "option"], role: .modem, maker: "Qualcomm", note: "reference-id modems"),
        USBVendorEntry(vendor: "413c", product: "81ba", role: .modem, maker: "Dell", note: "DW5580 (cdc_ether, flagged WWAN)"),
        USBVendorEntry(vendor: "1004", product: "61aa", role: .modem, maker: "LG", note: "VL600 LTE modem (lg-vl600)"),
        USBVendorEntry(vendor: "1004", drivers: ["lg_vl600"], role: .modem, maker: "LG", note: "LTE modems (lg-vl600)"),
    ]

    // MARK: Ethernet adapters

    /// USB Ethernet adapter and dock makers: wired, inexpensive.
    static let adapters: [USBVendorEntry] = [
        USBVendorEntry(vendor: "0bda", role: .ethernetAdapter, maker: "Realtek", note: "RTL8150/8152/8153/8156 (r8152)"),
        USBVendorEntry(vendor: "0b95", role: .ethernetAdapter, maker: "ASIX", note: "AX88172/88772/88179 (asix, ax88179_178a)"),
        USBVendorEntry(vendor: "0424", role: .ethernetAdapter, maker: "Microchip (SMSC)", note: "LAN95xx/LAN78xx (smsc95xx, lan78xx)"),
        USBVendorEntry(vendor: "0a46", role: .ethernetAdapter, maker: "Davicom", note: "DM9601 (dm9601)"),
        USBVendorEntry(vendor: "9710", role: .ethernetAdapter, maker: "MosChip", note: "MCS7830 (mcs7830)"),
        USBVendorEntry(vendor: "07a6", role: .ethernetAdapter, maker: "ADMtek", note: "Pegasus (pegasus)"),
        USBVendorEntry(vendor: "0fe6", role: .ethernetAdapter, maker: "CoreChips", note: "SR9700 (sr9700)"),
        USBVendorEntry(vendor: "2eca", role: .ethernetAdapter, maker: "Aquantia", note: "AQC111U/AQC112 (aqc111)"),
        // Adapter makers that also make other USB devices: scoped to the driver or product.
        USBVendorEntry(vendor: "05ac", product: "1402", role: .ethernetAdapter, maker: "Apple", note: "USB Ethernet Adapter (asix)"),
        USBVendorEntry(vendor: "05ac", drivers: ["asix"], role: .ethernetAdapter, maker: "Apple", note: "Apple-branded Ethernet adapters (asix)"),
        USBVendorEntry(vendor: "04e8", product: "a101", role: .ethernetAdapter, maker: "Samsung", note: "USB Ethernet adapter (r8152)"),
        USBVendorEntry(vendor: "045e", drivers: ["r8152", "cdc_ether", "asix", "ax88179_178a"], role: .ethernetAdapter, maker: "Microsoft", note: "Surface Ethernet adapters 07ab/07c6/0927 (r8152)"),
        USBVendorEntry(vendor: "17ef", drivers: ["r8152", "cdc_ether", "ax88179_178a", "asix"], role: .ethernetAdapter, maker: "Lenovo", note: "ThinkPad docks and adapters (r8152)"),
        USBVendorEntry(vendor: "17ef", product: "7205", role: .ethernetAdapter, maker: "Lenovo", note: "USB-C Ethernet adapter (r8152)"),
        USBVendorEntry(vendor: "17ef", product: "3062", role: .ethernetAdapter, maker: "Lenovo", note: "ThinkPad USB-C Dock (r8152)"),
        USBVendorEntry(vendor: "17ef", product: "3082", role: .ethernetAdapter, maker: "Lenovo", note: "ThinkPad TBT3 Dock (r8152)"),
        USBVendorEntry(vendor: "17ef", product: "a387", role: .ethernetAdapter, maker: "Lenovo", note: "ThinkPad USB-C Dock Gen 2 (r8152)"),
        USBVendorEntry(vendor: "0955", product: "09ff", role: .ethernetAdapter, maker: "NVIDIA", note: "Tegra USB 3.0 Ethernet (r8152)"),
        USBVendorEntry(vendor: "2357", drivers: ["r8152", "cdc_ether", "ax88179_178a", "asix"], role: .ethernetAdapter, maker: "TP-Link", note: "UE300 2357:0601 (r8152); the id is also on TP-Link Wi-Fi dongles"),
        USBVendorEntry(vendor: "13b1", drivers: ["r8152", "cdc_ether", "asix", "ax88179_178a"], role: .ethernetAdapter, maker: "Linksys", note: "USB3GIGV1 13b1:0041 (r8152)"),
        USBVendorEntry(vendor: "2001", drivers: ["asix", "ax88179_178a", "dm9601", "r8152"], role: .ethernetAdapter, maker: "D-Link", note: "DUB-E100/DUB-1312"),
        USBVendorEntry(vendor: "0846", drivers: ["asix", "ax88179_178a", "r8152"], role: .ethernetAdapter, maker: "Netgear", note: "FA120 (asix)"),
    ]

    // MARK: Lookup

    /// A USB id as four lower-case hex digits: trims spaces, drops a `0x` prefix, pads with
    /// zeros (`5AC` → `05ac`). `nil` unless 1–4 hex digits remain.
    public static func normalizedID(_ id: String) -> String? {
        var text = Substring(id)
        while let first = text.first, first == " " || first == "\t" || first == "\n" { text = text.dropFirst() }
        while let last = text.last, last == " " || last == "\t" || last == "\n" { text = text.dropLast() }
        if text.hasPrefix("0x") || text.hasPrefix("0X") { text = text.dropFirst(2) }
        guard (1...4).contains(text.utf8.count), text.utf8.allSatisfy({ ASCIIHex.value($0) != nil }) else {
            return nil
        }
        return String(repeating: "0", count: 4 - text.utf8.count) + text.lowercased()
    }

    /// A driver name as compared: lower-case, `-` written `_` (`lg-vl600` → `lg_vl600`).
    public static func normalizedDriver(_ driver: String) -> String {
        String(driver.lowercased().map { $0 == "-" ? "_" : $0 })
    }

    /// The built-in entry for a device, by the precedence in the type's documentation.
    public static func role(vendor: String, product: String?, driver: String?) -> USBVendorEntry? {
        match(vendor: vendor, product: product, driver: driver, extra: [])?.entry
    }

    /// The entry for a device, `extra` (user) entries first.
    public static func role(vendor: String, product: String?, driver: String?, extra: [USBVendorEntry]) -> USBVendorEntry? {
        match(vendor: vendor, product: product, driver: driver, extra: extra)?.entry
    }

    /// The entry for a device and the rule that found it, `extra` (user) entries first.
    ///
    /// - Parameters:
    ///   - vendor: `idVendor` (any case, optional `0x`).
    ///   - product: `idProduct`, or `nil` when unknown.
    ///   - driver: basename of `device/driver`, or `nil` when unknown (driver-scoped entries then
    ///     do not apply).
    ///   - extra: entries from a configuration file; they win over the built-in table.
    /// - Returns: `nil` for an unknown or malformed vendor id with no applicable rule.
    public static func match(vendor: String, product: String?, driver: String?, extra: [USBVendorEntry] = []) -> USBVendorMatch? {
        guard let vendor = normalizedID(vendor) else { return nil }
        let product = product.flatMap(normalizedID)
        let driver = driver.flatMap { $0.isEmpty ? nil : normalizedDriver($0) }

        if let found = best(in: extra, vendor: vendor, product: product, driver: driver, minimum: .vendor) {
            return USBVendorMatch(entry: found.entry, rule: found.rule, isUserEntry: true)
        }
        if let found = best(in: entries, vendor: vendor, product: product, driver: driver, minimum: .vendorAndDriver) {
            return USBVendorMatch(entry: found.entry, rule: found.rule, isUserEntry: false)
        }
        if let driver, ethernetAdapterDrivers.contains(driver) {
            let vendorEntry = entries.first { $0.vendor == vendor && $0.rule == .vendor }
            if let vendorEntry, vendorEntry.role == .ethernetAdapter {
                // The vendor's own entry agrees and says more (the chip family).
                return USBVendorMatch(entry: vendorEntry, rule: .vendor, isUserEntry: false)
            }
            let maker = vendorEntry?.maker ?? "unknown maker"
            let entry = USBVendorEntry(
                vendor: vendor, drivers: [driver], role: .ethernetAdapter, maker: maker,
                note: "driver \(driver) binds Ethernet controller chips only")
            return USBVendorMatch(entry: entry, rule: .ethernetDriver, isUserEntry: false)
        }
        if let found = best(in: entries, vendor: vendor, product: product, driver: driver, minimum: .vendor) {
            return USBVendorMatch(entry: found.entry, rule: found.rule, isUserEntry: false)
        }
        return nil
    }

    /// The most specific entry of `table` that applies, at `minimum` specificity or above.
    /// Exact entries that list drivers beat exact entries that do not.
    private static func best(
        in table: [USBVendorEntry], vendor: String, product: String?, driver: String?, minimum: USBVendorMatch.Rule
    ) -> (entry: USBVendorEntry, rule: USBVendorMatch.Rule)? {
        var found: (entry: USBVendorEntry, rank: Int)?
        for entry in table where entry.rule >= minimum && entry.applies(vendor: vendor, product: product, driver: driver) {
            // Rank: product with drivers 4, product 3, vendor and driver 2, vendor 0.
            let rank = entry.rule.rawValue + (entry.product != nil && entry.drivers != nil ? 1 : 0)
            if rank > (found?.rank ?? -1) { found = (entry, rank) }
        }
        return found.map { ($0.entry, $0.entry.rule) }
    }
}
