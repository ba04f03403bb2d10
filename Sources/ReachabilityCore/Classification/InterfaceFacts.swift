/// Everything known about one interface, from netlink and from sysfs, before classification.
///
/// Every field is optional where one source cannot tell it: an offline reading of a sysfs tree
/// has no rtnl `kind`, a namespace whose sysfs is not mounted has no ``SysfsFacts``.
public struct InterfaceFacts: Sendable, Hashable {
    /// The kernel's interface index (`ifi_index`): the interface's identity while it exists.
    public var index: Int32
    /// The interface name (`IFLA_IFNAME`); it can change (`ip link set … name`) while the index stays.
    public var name: String {
        get { storage.fields.name }
        set { mutate { $0.name = newValue } }
    }
    /// The `IFF_*` flags; `nil` when no source reported them.
    public var flags: LinkFlags? {
        get { storage.fields.flags }
        set { mutate { $0.flags = newValue } }
    }
    /// The RFC 2863 operational state (`IFLA_OPERSTATE`, sysfs `operstate`), when reported.
    public var operationalState: OperationalState? {
        get { storage.fields.operationalState }
        set { mutate { $0.operationalState = newValue } }
    }
    /// `ifi_type`, an `ARPHRD_*` value.
    public var hardwareType: UInt16? {
        get { storage.fields.hardwareType }
        set { mutate { $0.hardwareType = newValue } }
    }
    /// The rtnl link kind (`IFLA_INFO_KIND`): `veth`, `bridge`, `wireguard`, `tun`, `wwan`, …
    public var kind: String? {
        get { storage.fields.kind }
        set { mutate { $0.kind = newValue } }
    }
    /// The bridge or bond this interface is enslaved to (`IFLA_MASTER`).
    public var masterIndex: Int32? {
        get { storage.fields.masterIndex }
        set { mutate { $0.masterIndex = newValue } }
    }
    /// The lower device of a VLAN, macvlan or tunnel (`IFLA_LINK`), when it differs from itself.
    public var parentIndex: Int32? {
        get { storage.fields.parentIndex }
        set { mutate { $0.parentIndex = newValue } }
    }
    /// The 6-byte link-layer address (`IFLA_ADDRESS`) as `aa:bb:cc:dd:ee:ff`; `nil` for links without
    /// one (tunnels) or with a longer one (InfiniBand).
    public var macAddress: String? {
        get { storage.fields.macAddress }
        set { mutate { $0.macAddress = newValue } }
    }
    /// What `/sys/class/net/IF` says; `nil` when sysfs was not readable (not mounted in the namespace).
    public var sysfs: SysfsFacts? {
        get { storage.fields.sysfs }
        set { mutate { $0.sysfs = newValue } }
    }
    /// Hints from the interface's DHCP client lease, when one was found.
    public var dhcpHints: DHCPHints? {
        get { storage.fields.dhcpHints }
        set { mutate { $0.dhcpHints = newValue } }
    }

    /// What nl80211 says of a Wi-Fi interface (its mode and association); `nil` for other
    /// interfaces, and where nl80211 cannot be read (no cfg80211 in the kernel).
    public var wifi: WifiFacts? {
        get { storage.fields.wifi }
        set { mutate { $0.wifi = newValue } }
    }

    /// UP, LOWER_UP and RUNNING, and not a Wi-Fi station known to be disassociated (whose
    /// carrier the kernel drops only up to a second after nl80211 said so).
    public var canCarryTraffic: Bool {
        (flags?.canCarryTraffic ?? false) && wifi?.isDisconnectedStation != true
    }

    /// The facts live in one copy-on-write box: a snapshot of thousands of interfaces is copied
    /// into every path evaluation, and a copy of a dozen strings per interface was most of a
    /// storm's CPU. A copy is now one reference.
    private var storage: Storage

    /// Facts given field by field; what a source cannot tell stays `nil`.
    public init(
        name: String, index: Int32, flags: LinkFlags? = nil, operationalState: OperationalState? = nil,
        hardwareType: UInt16? = nil, kind: String? = nil, masterIndex: Int32? = nil, parentIndex: Int32? = nil,
        macAddress: String? = nil, sysfs: SysfsFacts? = nil, dhcpHints: DHCPHints? = nil, wifi: WifiFacts? = nil
    ) {
        self.index = index
        storage = Storage(Fields(
            name: name, flags: flags, operationalState: operationalState, hardwareType: hardwareType, kind: kind,
            masterIndex: masterIndex, parentIndex: parentIndex, macAddress: macAddress, sysfs: sysfs, dhcpHints: dhcpHints, wifi: wifi))
    }

    public static func == (lhs: InterfaceFacts, rhs: InterfaceFacts) -> Bool {
        lhs.index == rhs.index && (lhs.storage === rhs.storage || lhs.storage.fields == rhs.storage.fields)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(index)
        hasher.combine(storage.fields)
    }

    private mutating func mutate(_ change: (inout Fields) -> Void) {
        if !isKnownUniquelyReferenced(&storage) { storage = Storage(storage.fields) }
        change(&storage.fields)
    }

    private struct Fields: Hashable, Sendable {
        var name: String
        var flags: LinkFlags?
        var operationalState: OperationalState?
        var hardwareType: UInt16?
        var kind: String?
        var masterIndex: Int32?
        var parentIndex: Int32?
        var macAddress: String?
        var sysfs: SysfsFacts?
        var dhcpHints: DHCPHints?
        var wifi: WifiFacts?
    }

    // `@unchecked`: `fields` is only written through `mutate`, after the box was made unique,
    // so a box shared between values (and threads) is never written: value semantics.
    private final class Storage: @unchecked Sendable {
        var fields: Fields
        init(_ fields: Fields) { self.fields = fields }
    }
}

/// What the DHCP server told about the network, as found in the client's lease file.
public struct DHCPHints: Sendable, Hashable {
    /// Option 43 carried `ANDROID_METERED`: an Android phone's hotspot, metered.
    public var androidMetered: Bool
    /// The lease file the hint was read from, for evidence.
    public var leaseFile: String
    /// The DNS servers the lease names (option 6), for probes that resolve through this link.
    public var dnsServers: [String]
    /// The RFC 8908 captive-portal API URL the network announced (option 114, RFC 8910).
    public var captivePortalURL: String?

    /// Hints read from the lease file `leaseFile`.
    public init(androidMetered: Bool, leaseFile: String, dnsServers: [String] = [], captivePortalURL: String? = nil) {
        self.androidMetered = androidMetered
        self.leaseFile = leaseFile
        self.dnsServers = dnsServers
        self.captivePortalURL = captivePortalURL
    }
}

/// What `/sys/class/net/IF` says about an interface.
public struct SysfsFacts: Sendable, Hashable {
    /// `DEVTYPE=` from `uevent`: `wlan`, `wwan`, `bluetooth`, `gadget`, `bridge`, `vlan`, …
    public var deviceType: String?
    /// A `wireless/` directory exists (cfg80211 or wireless extensions).
    public var hasWirelessDirectory: Bool
    /// A `phy80211` link exists (a cfg80211 Wi-Fi device).
    public var hasPhy80211: Bool
    /// `device` links to a bus device: the interface has hardware behind it.
    public var hasDevice: Bool
    /// Basename of `device/driver`.
    public var driver: String?
    /// Basename of the bus the device sits on (`pci`, `usb`, `virtio`, `platform`, …).
    public var bus: String?
    /// `idVendor` of the USB device, lower-case hex (`12d1`).
    public var usbVendorID: String?
    /// `idProduct` of the USB device, lower-case hex.
    public var usbProductID: String?
    /// `tun_flags` (present only on tun/tap devices).
    public var tunFlags: UInt32?
    /// `qmi/raw_ip` exists (qmi_wwan); its value says whether raw-IP mode is on.
    public var qmiRawIP: Bool?
    /// A `bridge/` directory exists: the interface is a bridge.
    public var isBridge: Bool
    /// A `bonding/` directory exists: the interface is a bond.
    public var isBond: Bool

    /// Sysfs facts given field by field; a file or link that is absent stays `nil` or `false`.
    public init(
        deviceType: String? = nil, hasWirelessDirectory: Bool = false, hasPhy80211: Bool = false,
        hasDevice: Bool = false, driver: String? = nil, bus: String? = nil, usbVendorID: String? = nil,
        usbProductID: String? = nil, tunFlags: UInt32? = nil, qmiRawIP: Bool? = nil, isBridge: Bool = false,
        isBond: Bool = false
    ) {
        self.deviceType = deviceType
        self.hasWirelessDirectory = hasWirelessDirectory
        self.hasPhy80211 = hasPhy80211
        self.hasDevice = hasDevice
        self.driver = driver
        self.bus = bus
        self.usbVendorID = usbVendorID
        self.usbProductID = usbProductID
        self.tunFlags = tunFlags
        self.qmiRawIP = qmiRawIP
        self.isBridge = isBridge
        self.isBond = isBond
    }
}
