/// Everything known about one interface, from netlink and from sysfs, before classification.
///
/// Every field is optional where one source cannot tell it: an offline reading of a sysfs tree
/// has no rtnl `kind`, a namespace whose sysfs is not mounted has no ``SysfsFacts``.
public struct InterfaceFacts: Sendable, Hashable {
    public var name: String
    public var index: Int32
    public var flags: LinkFlags?
    public var operationalState: OperationalState?
    /// `ifi_type`, an `ARPHRD_*` value.
    public var hardwareType: UInt16?
    /// The rtnl link kind (`IFLA_INFO_KIND`): `veth`, `bridge`, `wireguard`, `tun`, `wwan`, …
    public var kind: String?
    /// The bridge or bond this interface is enslaved to (`IFLA_MASTER`).
    public var masterIndex: Int32?
    /// The lower device of a VLAN, macvlan or tunnel (`IFLA_LINK`), when it differs from itself.
    public var parentIndex: Int32?
    public var macAddress: String?
    public var sysfs: SysfsFacts?
    /// Hints from the interface's DHCP client lease, when one was found.
    public var dhcpHints: DHCPHints?

    public init(
        name: String, index: Int32, flags: LinkFlags? = nil, operationalState: OperationalState? = nil,
        hardwareType: UInt16? = nil, kind: String? = nil, masterIndex: Int32? = nil, parentIndex: Int32? = nil,
        macAddress: String? = nil, sysfs: SysfsFacts? = nil, dhcpHints: DHCPHints? = nil
    ) {
        self.name = name
        self.index = index
        self.flags = flags
        self.operationalState = operationalState
        self.hardwareType = hardwareType
        self.kind = kind
        self.masterIndex = masterIndex
        self.parentIndex = parentIndex
        self.macAddress = macAddress
        self.sysfs = sysfs
        self.dhcpHints = dhcpHints
    }
}

/// What the DHCP server told about the network, as found in the client's lease file.
public struct DHCPHints: Sendable, Hashable {
    /// Option 43 carried `ANDROID_METERED`: an Android phone's hotspot, metered.
    public var androidMetered: Bool
    /// The lease file the hint was read from, for evidence.
    public var leaseFile: String

    public init(androidMetered: Bool, leaseFile: String) {
        self.androidMetered = androidMetered
        self.leaseFile = leaseFile
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
    /// `idVendor` / `idProduct` of the USB device, lower-case hex.
    public var usbVendorID: String?
    public var usbProductID: String?
    /// `tun_flags` (present only on tun/tap devices).
    public var tunFlags: UInt32?
    /// `qmi/raw_ip` exists (qmi_wwan); its value says whether raw-IP mode is on.
    public var qmiRawIP: Bool?
    /// `bridge/` or `bonding/` directories exist.
    public var isBridge: Bool
    public var isBond: Bool

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
