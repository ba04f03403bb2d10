import Glibc
public import ReachabilityCore
import ReachabilityLinux
import Synchronization

/// A fake `/sys` in a fresh temporary directory, laid out as the kernel lays out network
/// interfaces, symbolic links included.
///
/// Each added ``FixtureInterface`` gets:
/// - `ROOT/class/net/NAME`, a relative symbolic link to the interface directory, which is
///   `ROOT/devices/<device path>/net/NAME` for hardware and `ROOT/devices/virtual/net/NAME`
///   for software interfaces;
/// - the attribute files `uevent` (`DEVTYPE=`, `INTERFACE=`, `IFINDEX=`), `ifindex`, `iflink`,
///   `type` (`ARPHRD_*`, decimal), `flags` (`dev->flags`, hex), `carrier`, `operstate`,
///   `address` and `mtu`;
/// - for hardware, a `device` link to the bus (or class) device, whose `driver` links to
///   `ROOT/bus/BUS/drivers/DRIVER` and whose `subsystem` links to `ROOT/bus/BUS`; USB
///   interfaces sit below the USB device that carries `idVendor` and `idProduct`;
/// - when the interface has them: `wireless/`, `phy80211` (to `DEVICE/ieee80211/phyN`),
///   `tun_flags`, `qmi/raw_ip`, `bridge/`, `bonding/`, and `master` with `upper_*` / `lower_*`
///   links between a port and its bridge or bond.
///
/// ```swift
/// let fixture = try SysfsFixture()
/// defer { fixture.remove() }
/// try fixture.add(FixtureInterface.everyKind)
/// let facts = SysfsReader(root: fixture.root).facts(forInterface: "wlp0s20f3")
/// ```
///
/// The tree is deleted by ``remove()`` or when the fixture is deinitialized, so keep the
/// fixture alive (a `defer { fixture.remove() }` does) while the tree is read.
public final class SysfsFixture: Sendable {
    /// The directory that stands for `/sys`: pass it to `SysfsReader(root:)`. Canonical
    /// (symbolic links resolved), so paths resolved inside the tree start with it.
    public let root: String
    private let state = Mutex<[FixtureInterface]>([])

    /// Creates an empty tree (`class/net`, `devices/virtual/net`, `bus`) under `/tmp`.
    public init() throws(SysfsFixtureError) {
        var template = Array("/tmp/reach-sysfs-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { buffer -> String? in
            guard let pointer = mkdtemp(buffer.baseAddress!) else { return nil }
            return String(cString: pointer)
        }
        guard let made else { throw SysfsFixtureError(operation: "mkdtemp", path: "/tmp/reach-sysfs-XXXXXX", code: errno) }
        guard let canonical = realpath(made, nil) else {
            throw SysfsFixtureError(operation: "realpath", path: made, code: errno)
        }
        root = String(cString: canonical)
        free(canonical)
        for directory in ["class/net", "devices/virtual/net", "bus"] {
            try Tree(root: root).makeDirectories(directory)
        }
    }

    deinit { remove() }

    /// The interfaces added so far, in the order they were added.
    public var interfaces: [FixtureInterface] { state.withLock { $0 } }

    /// Adds one interface. A ``FixtureInterface/master`` must have been added before its ports.
    public func add(_ interface: FixtureInterface) throws(SysfsFixtureError) {
        try state.withLock { (added: inout [FixtureInterface]) throws(SysfsFixtureError) in
            guard !added.contains(where: { $0.name == interface.name }) else {
                throw SysfsFixtureError(operation: "add", path: interface.name, code: EEXIST)
            }
            var interface = interface
            var master: FixtureInterface?
            if let masterName = interface.master {
                guard let found = added.first(where: { $0.name == masterName }) else {
                    throw SysfsFixtureError(operation: "add (master not added yet)", path: masterName, code: ENOENT)
                }
                master = found
                if found.isBond { interface.flags |= 0x800 }  // IFF_SLAVE
            }
            try Tree(root: root).write(interface, master: master)
            added.append(interface)
        }
    }

    /// Adds interfaces in order.
    public func add(_ interfaces: [FixtureInterface]) throws(SysfsFixtureError) {
        for interface in interfaces { try add(interface) }
    }

    /// What rtnetlink would report for each added interface (name, index, `IFF_*` flags with
    /// `LOWER_UP`/`RUNNING`, `ARPHRD`, rtnl kind, master, `IFLA_LINK`, MAC), with sysfs facts
    /// read back through `SysfsReader.facts(forInterface:index:macAddress:)` as the monitor
    /// reads them. Sorted by index.
    public func linkFacts() -> [InterfaceFacts] {
        let added = interfaces
        let reader = SysfsReader(root: root)
        return added.map { interface in
            var facts = interface.linkFacts(masterIndex: added.first { $0.name == interface.master }?.index)
            facts.sysfs = reader.facts(forInterface: interface.name, index: interface.index, macAddress: facts.macAddress)
            return facts
        }.sorted { $0.index < $1.index }
    }

    /// Deletes the tree. Safe to call more than once.
    public func remove() {
        Tree.removeRecursively(root)
    }
}

/// A fixture tree operation that failed: what, on which path, and `errno`.
public struct SysfsFixtureError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The call that failed (`mkdir`, `symlink`, `open`, …) or `add` for a misuse.
    public var operation: String
    /// The file, or the interface name for `add`.
    public var path: String
    /// The `errno` value (`EEXIST` for a name added twice, `ENOENT` for a missing master).
    public var code: Int32

    /// Creates an error for `operation` on `path` that failed with `errno` `code`.
    public init(operation: String, path: String, code: Int32) {
        self.operation = operation
        self.path = path
        self.code = code
    }

    /// `symlink /tmp/…/class/net/wlan0: File exists`.
    public var description: String {
        "\(operation) \(path): \(String(cString: strerror(code)))"
    }
}

/// The hardware behind an interface: the device its `device` link points to.
public struct FixtureDevice: Sendable, Hashable {
    /// The device directory below `ROOT/devices`, e.g. `pci0000:00/0000:00:14.3`.
    public var path: String
    /// What `subsystem` links to below `ROOT`: `bus/pci`, `bus/usb`, `bus/virtio`, or
    /// `class/wwan` / `class/bluetooth` for class devices (which have no driver).
    public var subsystem: String
    /// The driver bound to the device (`device/driver`), if any.
    public var driver: String?
    /// The USB device (below `ROOT/devices`) that carries `idVendor` / `idProduct`, and its ids
    /// (lower-case hex, as sysfs prints them).
    public var usbDevice: String?
    /// `idVendor` of ``usbDevice``, e.g. `05ac`.
    public var usbVendorID: String?
    /// `idProduct` of ``usbDevice``, e.g. `12a8`.
    public var usbProductID: String?

    /// Describes a device directory; see ``pci(_:driver:)`` and
    /// ``usbInterface(port:configuration:interface:vendor:product:driver:)`` for the usual shapes.
    public init(
        path: String, subsystem: String, driver: String? = nil, usbDevice: String? = nil, usbVendorID: String? = nil,
        usbProductID: String? = nil
    ) {
        self.path = path
        self.subsystem = subsystem
        self.driver = driver
        self.usbDevice = usbDevice
        self.usbVendorID = usbVendorID
        self.usbProductID = usbProductID
    }

    /// A PCI function, e.g. `pci("pci0000:00/0000:00:14.3", driver: "iwlwifi")`.
    public static func pci(_ path: String, driver: String) -> FixtureDevice {
        FixtureDevice(path: path, subsystem: "bus/pci", driver: driver)
    }

    /// A USB interface `PORT:CONFIG.INTERFACE` (e.g. `1-2:1.4`) of the USB device `PORT`
    /// (e.g. `1-2`) on root hub `usbN` of the xHCI controller at `0000:00:14.0`.
    public static func usbInterface(
        port: String, configuration: Int = 1, interface: Int, vendor: String, product: String, driver: String
    ) -> FixtureDevice {
        let bus = port.split(separator: "-").first.map(String.init) ?? "1"
        let device = "pci0000:00/0000:00:14.0/usb\(bus)/\(port)"
        return FixtureDevice(
            path: "\(device)/\(port):\(configuration).\(interface)", subsystem: "bus/usb", driver: driver,
            usbDevice: device, usbVendorID: vendor, usbProductID: product)
    }
}

/// One network interface of a ``SysfsFixture``: what sysfs shows, plus the rtnl ``kind`` that
/// only netlink reports. Static factories give the shapes real drivers produce.
public struct FixtureInterface: Sendable, Hashable, CustomStringConvertible {
    /// The interface name (at most 15 characters in a real kernel).
    public var name: String
    /// `ifindex`, distinct within one fixture.
    public var index: Int32
    /// `ARPHRD_*`: 1 Ethernet, 512 PPP, 519 raw IP, 772 loopback, 65534 none.
    public var hardwareType: UInt16
    /// `dev->flags` as sysfs `flags` prints them (no `RUNNING` / `LOWER_UP`).
    public var flags: UInt32
    /// sysfs `carrier` (not written while the interface is down, as reading it then fails).
    public var carrier: Bool
    /// sysfs `operstate`: `up`, `unknown`, `down`, `dormant`, `lowerlayerdown`.
    public var operstate: String
    /// nil for devices with no link-layer address (`addr_len` 0): `address` is then empty.
    public var macAddress: String?
    /// `DEVTYPE=` in `uevent`, set by drivers through `SET_NETDEV_DEVTYPE`.
    public var deviceType: String?
    /// `iflink` when it differs from `ifindex`: lower device of a VLAN or rmnet, peer of a veth.
    public var parentIndex: Int32?
    /// `IFLA_INFO_KIND` that netlink reports; not in sysfs.
    public var kind: String?
    /// The hardware behind the interface; nil puts it under `devices/virtual/net`.
    public var device: FixtureDevice?
    /// `wireless/` directory (cfg80211 or wireless extensions).
    public var hasWirelessDirectory: Bool
    /// The wiphy (`phy0`) that `phy80211` links to, below the device's `ieee80211/`.
    public var phy: String?
    /// `tun_flags` of a tun/tap device (`IFF_TUN` 0x1, `IFF_TAP` 0x2, `IFF_NO_PI` 0x1000).
    public var tunFlags: UInt32?
    /// `qmi/raw_ip` of a qmi_wwan device.
    public var qmiRawIP: Bool?
    /// A `bridge/` directory: the interface is a Linux bridge.
    public var isBridge: Bool
    /// A `bonding/` directory: the interface is a bonding master.
    public var isBond: Bool
    /// Name of the bridge or bond this interface is a port of (`master`).
    public var master: String?
    /// sysfs `mtu`.
    public var mtu: Int

    /// Describes an interface field by field; the static presets give real drivers' shapes.
    public init(
        name: String, index: Int32, hardwareType: UInt16 = 1, flags: UInt32 = 0x1003, carrier: Bool = true,
        operstate: String = "up", macAddress: String? = nil, deviceType: String? = nil, parentIndex: Int32? = nil,
        kind: String? = nil, device: FixtureDevice? = nil, hasWirelessDirectory: Bool = false, phy: String? = nil,
        tunFlags: UInt32? = nil, qmiRawIP: Bool? = nil, isBridge: Bool = false, isBond: Bool = false,
        master: String? = nil, mtu: Int = 1500
    ) {
        self.name = name
        self.index = index
        self.hardwareType = hardwareType
        self.flags = flags
        self.carrier = carrier
        self.operstate = operstate
        self.macAddress = macAddress
        self.deviceType = deviceType
        self.parentIndex = parentIndex
        self.kind = kind
        self.device = device
        self.hasWirelessDirectory = hasWirelessDirectory
        self.phy = phy
        self.tunFlags = tunFlags
        self.qmiRawIP = qmiRawIP
        self.isBridge = isBridge
        self.isBond = isBond
        self.master = master
        self.mtu = mtu
    }

    /// The interface name.
    public var description: String { name }

    /// Returns a copy enslaved to `master` (a bridge or bond added before it). Adding it to a
    /// bond also sets `IFF_SLAVE` in its flags, as the bonding driver does.
    public func port(of master: String) -> FixtureInterface {
        var copy = self
        copy.master = master
        return copy
    }

    /// The facts netlink would report for this interface, without sysfs.
    public func linkFacts(masterIndex: Int32? = nil) -> InterfaceFacts {
        var linkFlags = LinkFlags(rawValue: flags)
        // dev_get_flags(): RUNNING when operstate is up or unknown, LOWER_UP with carrier.
        if linkFlags.contains(.up) {
            if carrier { linkFlags.insert(.lowerUp) }
            if operstate == "up" || operstate == "unknown" { linkFlags.insert(.running) }
        }
        return InterfaceFacts(
            name: name, index: index, flags: linkFlags, operationalState: OperationalState(rawValue: operstate),
            hardwareType: hardwareType, kind: kind, masterIndex: masterIndex, parentIndex: parentIndex,
            macAddress: macAddress)
    }
}

// MARK: - Presets

extension FixtureInterface {
    /// `lo`: `ARPHRD_LOOPBACK`, `IFF_LOOPBACK`, operstate unknown.
    public static func loopback(index: Int32 = 1) -> FixtureInterface {
        FixtureInterface(
            name: "lo", index: index, hardwareType: 772, flags: 0x9, operstate: "unknown",
            macAddress: "00:00:00:00:00:00", mtu: 65536)
    }

    /// Intel PCIe Wi-Fi: `iwlwifi` on PCI, cfg80211 sets `DEVTYPE=wlan`, `phy80211`, `wireless/`.
    public static func intelWiFi(
        name: String = "wlp0s20f3", index: Int32, pciPath: String = "pci0000:00/0000:00:14.3", phy: String = "phy0",
        macAddress: String = "a4:c3:f0:85:6e:01"
    ) -> FixtureInterface {
        FixtureInterface(
            name: name, index: index, macAddress: macAddress, deviceType: "wlan",
            device: .pci(pciPath, driver: "iwlwifi"), hasWirelessDirectory: true, phy: phy)
    }

    /// A USB Wi-Fi dongle (MediaTek `mt7601u`, 148f:7601): cfg80211 on a USB interface.
    public static func usbWiFi(
        name: String = "wlx00c0ca9a1b2c", index: Int32, port: String = "1-3", phy: String = "phy1",
        driver: String = "mt7601u", vendor: String = "148f", product: String = "7601"
    ) -> FixtureInterface {
        FixtureInterface(
            name: name, index: index, macAddress: "00:c0:ca:9a:1b:2c", deviceType: "wlan",
            device: .usbInterface(port: port, interface: 0, vendor: vendor, product: product, driver: driver),
            hasWirelessDirectory: true, phy: phy)
    }

    /// A Qualcomm-based USB modem on `qmi_wwan` (Quectel EC25, 2c7c:0125, interface 4). usbnet's
    /// `FLAG_WWAN` sets `DEVTYPE=wwan`; in raw-IP mode the netdev is `ARPHRD_NONE` with
    /// `POINTOPOINT|NOARP` and no MAC, otherwise Ethernet.
    public static func qmiWWAN(
        name: String = "wwan0", index: Int32, rawIP: Bool = true, port: String = "1-2", interface: Int = 4,
        vendor: String = "2c7c", product: String = "0125"
    ) -> FixtureInterface {
        FixtureInterface(
            name: name, index: index, hardwareType: rawIP ? 65534 : 1, flags: rawIP ? 0x1091 : 0x1003,
            operstate: "unknown", macAddress: rawIP ? nil : "9e:1f:44:0b:7a:e2", deviceType: "wwan",
            device: .usbInterface(port: port, interface: interface, vendor: vendor, product: product, driver: "qmi_wwan"),
            qmiRawIP: rawIP)
    }

    /// A USB MBIM modem on `cdc_mbim` (Sierra EM7455 in MBIM mode, 1199:9079): `FLAG_WWAN`
    /// (`DEVTYPE=wwan`), Ethernet framing with `NOARP`.
    public static func cdcMBIM(
        name: String = "wwan1", index: Int32, port: String = "1-4", interface: Int = 12,
        vendor: String = "1199", product: String = "9079"
    ) -> FixtureInterface {
        FixtureInterface(
            name: name, index: index, flags: 0x1083, operstate: "unknown", macAddress: "22:5d:1c:08:90:4f",
            deviceType: "wwan",
            device: .usbInterface(port: port, interface: interface, vendor: vendor, product: product, driver: "cdc_mbim"))
    }

    /// A PCIe modem on the Linux WWAN framework (`mhi_wwan_mbim`): rtnl kind `wwan`,
    /// `ARPHRD_RAWIP`, `DEVTYPE=wwan`, parented to the `wwanN` class device below the MHI
    /// controller (so `device` has a `subsystem` of class `wwan` and no driver).
    public static func wwanFramework(
        name: String = "wwan2", index: Int32, pciPath: String = "pci0000:00/0000:00:1c.0/0000:02:00.0",
        wwanDevice: String = "wwan0"
    ) -> FixtureInterface {
        FixtureInterface(
            name: name, index: index, hardwareType: 519, flags: 0x91, operstate: "unknown", deviceType: "wwan",
            kind: "wwan", device: FixtureDevice(path: "\(pciPath)/mhi0/wwan/\(wwanDevice)", subsystem: "class/wwan"))
    }

    /// A Qualcomm `rmnet` mux channel over `parentIndex`: virtual, rtnl kind `rmnet`,
    /// `ARPHRD_RAWIP`, no `DEVTYPE`, `iflink` = the real device.
    public static func rmnet(name: String = "rmnet_data0", index: Int32, parentIndex: Int32) -> FixtureInterface {
        FixtureInterface(
            name: name, index: index, hardwareType: 519, flags: 0x1, operstate: "unknown", parentIndex: parentIndex,
            kind: "rmnet")
    }

    /// A PPP link (pppd over a serial modem, or PPPoE): virtual, `ARPHRD_PPP`, `DEVTYPE=ppp`,
    /// rtnl kind `ppp`, `POINTOPOINT|NOARP|MULTICAST`.
    public static func ppp(name: String = "ppp0", index: Int32) -> FixtureInterface {
        FixtureInterface(
            name: name, index: index, hardwareType: 512, flags: 0x1091, operstate: "unknown", deviceType: "ppp",
            kind: "ppp", mtu: 1500)
    }

    /// A PCI Ethernet card (`e1000e`, `igc`, …): no `DEVTYPE`, only `device`.
    public static func pciEthernet(
        name: String = "enp0s31f6", index: Int32, pciPath: String = "pci0000:00/0000:00:1f.6", driver: String = "e1000e",
        macAddress: String = "8c:16:45:3a:77:10"
    ) -> FixtureInterface {
        FixtureInterface(name: name, index: index, macAddress: macAddress, device: .pci(pciPath, driver: driver))
    }

    /// A Linux bridge: virtual, `DEVTYPE=bridge`, `bridge/`, rtnl kind `bridge`.
    public static func bridge(name: String = "br0", index: Int32, macAddress: String = "02:42:ac:11:00:01") -> FixtureInterface {
        FixtureInterface(
            name: name, index: index, macAddress: macAddress, deviceType: "bridge", kind: "bridge", isBridge: true)
    }

    /// A veth end: virtual, no `DEVTYPE`, rtnl kind `veth`; `iflink` is the peer's index, which
    /// may belong to another network namespace.
    public static func veth(name: String, index: Int32, peerIndex: Int32) -> FixtureInterface {
        FixtureInterface(
            name: name, index: index, macAddress: "5a:94:ef:e4:0c:ee", parentIndex: peerIndex, kind: "veth")
    }

    /// A bonding master: virtual, `DEVTYPE=bond`, `bonding/`, `IFF_MASTER`, rtnl kind `bond`.
    public static func bond(name: String = "bond0", index: Int32) -> FixtureInterface {
        FixtureInterface(
            name: name, index: index, flags: 0x1403, macAddress: "00:50:b6:aa:bb:cc", deviceType: "bond", kind: "bond",
            isBond: true)
    }

    /// An 802.1Q VLAN on `parentIndex`: virtual, `DEVTYPE=vlan`, rtnl kind `vlan`, `iflink` =
    /// the lower device.
    public static func vlan(name: String, index: Int32, parentIndex: Int32, macAddress: String = "a4:c3:f0:85:6e:01")
        -> FixtureInterface
    {
        FixtureInterface(
            name: name, index: index, macAddress: macAddress, deviceType: "vlan", parentIndex: parentIndex, kind: "vlan")
    }

    /// WireGuard: virtual, `DEVTYPE=wireguard`, `ARPHRD_NONE`, `POINTOPOINT|NOARP`, no MAC.
    public static func wireguard(name: String = "wg0", index: Int32) -> FixtureInterface {
        FixtureInterface(
            name: name, index: index, hardwareType: 65534, flags: 0x91, operstate: "unknown", deviceType: "wireguard",
            kind: "wireguard", mtu: 1420)
    }

    /// A TUN device (OpenVPN, tailscale): virtual, `ARPHRD_NONE`, no `DEVTYPE`, rtnl kind `tun`,
    /// `tun_flags` 0x1001 (`IFF_TUN|IFF_NO_PI`).
    public static func tun(name: String = "tun0", index: Int32) -> FixtureInterface {
        FixtureInterface(
            name: name, index: index, hardwareType: 65534, flags: 0x1091, operstate: "unknown", kind: "tun",
            tunFlags: 0x1001)
    }

    /// A TAP device: virtual Ethernet, rtnl kind `tun` too, `tun_flags` 0x1002
    /// (`IFF_TAP|IFF_NO_PI`).
    public static func tap(name: String = "tap0", index: Int32) -> FixtureInterface {
        FixtureInterface(
            name: name, index: index, operstate: "unknown", macAddress: "b6:2e:99:01:5c:7d", kind: "tun", tunFlags: 0x1002)
    }

    /// A USB Ethernet dongle: Realtek `r8152` (0bda:8153) by default, or e.g.
    /// `driver: "ax88179_178a", vendor: "0b95", product: "1790"`. No `DEVTYPE`.
    public static func usbEthernet(
        name: String = "enx00e04c680001", index: Int32, port: String = "2-1", driver: String = "r8152",
        vendor: String = "0bda", product: String = "8153", macAddress: String = "00:e0:4c:68:00:01"
    ) -> FixtureInterface {
        FixtureInterface(
            name: name, index: index, macAddress: macAddress,
            device: .usbInterface(port: port, interface: 0, vendor: vendor, product: product, driver: driver))
    }

    /// A virtio NIC in a VM: `virtio_net` on bus `virtio`, below the PCI function.
    public static func virtio(
        name: String = "ens3", index: Int32, pciPath: String = "pci0000:00/0000:00:03.0", virtioIndex: Int = 0
    ) -> FixtureInterface {
        FixtureInterface(
            name: name, index: index, macAddress: "52:54:00:12:34:56",
            device: FixtureDevice(path: "\(pciPath)/virtio\(virtioIndex)", subsystem: "bus/virtio", driver: "virtio_net"))
    }

    /// iPhone USB tethering: `ipheth` on configuration 4, interface 2 of an Apple (05ac) device.
    /// Ethernet, no `DEVTYPE`.
    public static func ipheth(
        name: String = "enp0s20f0u1c4i2", index: Int32, port: String = "1-1", product: String = "12a8"
    ) -> FixtureInterface {
        FixtureInterface(
            name: name, index: index, macAddress: "be:d9:f3:1e:47:02",
            device: .usbInterface(port: port, configuration: 4, interface: 2, vendor: "05ac", product: product, driver: "ipheth"))
    }

    /// Bluetooth PAN (`bnep`): Ethernet, `DEVTYPE=bluetooth`; its parent is the ACL connection's
    /// class device `hciN:HANDLE` below the adapter (here a USB adapter, 8087:0a2b), so `device`
    /// has class `bluetooth` and no driver.
    public static func bluetoothPAN(
        name: String = "bnep0", index: Int32, adapterPort: String = "1-10", hci: String = "hci0", handle: Int = 256
    ) -> FixtureInterface {
        let adapter = FixtureDevice.usbInterface(port: adapterPort, interface: 0, vendor: "8087", product: "0a2b", driver: "btusb")
        return FixtureInterface(
            name: name, index: index, macAddress: "5c:f3:70:8b:12:9e", deviceType: "bluetooth",
            device: FixtureDevice(
                path: "\(adapter.path)/bluetooth/\(hci)/\(hci):\(handle)", subsystem: "class/bluetooth",
                usbDevice: adapter.usbDevice, usbVendorID: adapter.usbVendorID, usbProductID: adapter.usbProductID))
    }

    /// One interface of every preset, with distinct names and indices, masters before their
    /// ports: a Wi-Fi card renamed `eth1`, an Ethernet card renamed `wlan9`, `br0` with a wired
    /// port and a veth, `docker0` with only a veth, `bond0` with a USB Ethernet slave, a VLAN on
    /// Wi-Fi (`wlp0s20f3.100`), and `rmnet_data0` over `wwan0`.
    public static let everyKind: [FixtureInterface] = [
        .loopback(index: 1),
        .intelWiFi(index: 2),
        .usbWiFi(index: 3),
        .qmiWWAN(index: 4),
        .cdcMBIM(index: 5),
        .wwanFramework(index: 6),
        .rmnet(index: 7, parentIndex: 4),
        .ppp(index: 8),
        .bridge(name: "br0", index: 10),
        .pciEthernet(index: 9).port(of: "br0"),
        .bridge(name: "docker0", index: 11, macAddress: "02:42:3b:9c:10:01"),
        .veth(name: "veth3f2a1b0", index: 12, peerIndex: 2).port(of: "docker0"),
        .bond(index: 13),
        .usbEthernet(
            name: "enx0050b6aabbcc", index: 14, port: "2-2", driver: "ax88179_178a", vendor: "0b95", product: "1790",
            macAddress: "00:50:b6:aa:bb:cc"
        ).port(of: "bond0"),
        .usbEthernet(index: 15),
        .vlan(name: "wlp0s20f3.100", index: 16, parentIndex: 2),
        .wireguard(index: 17),
        .tun(index: 18),
        .tap(index: 19),
        .virtio(index: 20),
        .ipheth(index: 21),
        .bluetoothPAN(index: 22),
        .intelWiFi(
            name: "eth1", index: 23, pciPath: "pci0000:00/0000:00:1c.0/0000:03:00.0", phy: "phy2",
            macAddress: "a4:c3:f0:85:6e:02"),
        .pciEthernet(
            name: "wlan9", index: 24, pciPath: "pci0000:00/0000:00:1c.4/0000:04:00.0", driver: "igc",
            macAddress: "9c:6b:00:12:ab:cd"),
        .qmiWWAN(name: "wwan3", index: 25, rawIP: false, port: "1-5", interface: 8, vendor: "1199", product: "9071"),
    ]
}

// MARK: - Writing the tree

/// File-system operations below a root, with paths relative to it.
private struct Tree {
    let root: String

    func write(_ interface: FixtureInterface, master: FixtureInterface?) throws(SysfsFixtureError) {
        let directory = Self.directory(of: interface)
        try makeDirectories(directory)
        try link("class/net/\(interface.name)", to: directory)
        try link("\(directory)/subsystem", to: "class/net")

        var uevent = ""
        if let deviceType = interface.deviceType { uevent += "DEVTYPE=\(deviceType)\n" }
        uevent += "INTERFACE=\(interface.name)\nIFINDEX=\(interface.index)\n"
        try writeFile("\(directory)/uevent", uevent)
        try writeFile("\(directory)/ifindex", "\(interface.index)\n")
        try writeFile("\(directory)/iflink", "\(interface.parentIndex ?? interface.index)\n")
        try writeFile("\(directory)/type", "\(interface.hardwareType)\n")
        try writeFile("\(directory)/flags", "0x\(String(interface.flags, radix: 16))\n")
        // Reading `carrier` of a down interface fails (EINVAL) in real sysfs: leave it out.
        if interface.flags & 0x1 != 0 { try writeFile("\(directory)/carrier", interface.carrier ? "1\n" : "0\n") }
        try writeFile("\(directory)/operstate", "\(interface.operstate)\n")
        try writeFile("\(directory)/address", "\(interface.macAddress ?? "")\n")
        try writeFile("\(directory)/mtu", "\(interface.mtu)\n")

        if let device = interface.device { try writeDevice(device, interface: interface, directory: directory) }
        if interface.hasWirelessDirectory { try makeDirectories("\(directory)/wireless") }
        if let tunFlags = interface.tunFlags {
            try writeFile("\(directory)/tun_flags", "0x\(String(tunFlags, radix: 16))\n")
        }
        if let rawIP = interface.qmiRawIP {
            try makeDirectories("\(directory)/qmi")
            try writeFile("\(directory)/qmi/raw_ip", rawIP ? "Y\n" : "N\n")
            try writeFile("\(directory)/qmi/pass_through", "N\n")
        }
        if interface.isBridge {
            try makeDirectories("\(directory)/bridge")
            try makeDirectories("\(directory)/brif")
            try writeFile("\(directory)/bridge/stp_state", "0\n")
        }
        if interface.isBond {
            try makeDirectories("\(directory)/bonding")
            try writeFile("\(directory)/bonding/mode", "active-backup 1\n")
        }
        if let master {
            let masterDirectory = Self.directory(of: master)
            try link("\(directory)/master", to: masterDirectory)
            try link("\(directory)/upper_\(master.name)", to: masterDirectory)
            try link("\(masterDirectory)/lower_\(interface.name)", to: directory)
            if master.isBridge {
                try makeDirectories("\(directory)/brport")
                try link("\(masterDirectory)/brif/\(interface.name)", to: "\(directory)/brport")
            }
            if master.isBond {
                try makeDirectories("\(directory)/bonding_slave")
                try appendLine("\(masterDirectory)/bonding/slaves", interface.name)
            }
        }
    }

    private func writeDevice(_ device: FixtureDevice, interface: FixtureInterface, directory: String) throws(SysfsFixtureError) {
        let devicePath = "devices/\(device.path)"
        try makeDirectories(devicePath)
        try link("\(directory)/device", to: devicePath)
        try makeDirectories(device.subsystem)
        try link("\(devicePath)/subsystem", to: device.subsystem)
        var uevent = ""
        if device.subsystem == "bus/usb" { uevent += "DEVTYPE=usb_interface\n" }
        if let driver = device.driver {
            let driverPath = "\(device.subsystem)/drivers/\(driver)"
            try makeDirectories(driverPath)
            try link("\(devicePath)/driver", to: driverPath)
            try link("\(driverPath)/\(Self.basename(device.path))", to: devicePath, replacing: true)
            uevent += "DRIVER=\(driver)\n"
        }
        try writeFile("\(devicePath)/uevent", uevent)
        if device.subsystem.hasPrefix("class/") {
            try link("\(device.subsystem)/\(Self.basename(device.path))", to: devicePath, replacing: true)
        }
        if let usbDevice = device.usbDevice {
            let usbPath = "devices/\(usbDevice)"
            try makeDirectories(usbPath)
            if let vendor = device.usbVendorID { try writeFile("\(usbPath)/idVendor", "\(vendor)\n") }
            if let product = device.usbProductID { try writeFile("\(usbPath)/idProduct", "\(product)\n") }
            try writeFile("\(usbPath)/uevent", "DEVTYPE=usb_device\nDRIVER=usb\n")
            try makeDirectories("bus/usb/drivers/usb")
            try link("\(usbPath)/subsystem", to: "bus/usb", replacing: true)
            try link("\(usbPath)/driver", to: "bus/usb/drivers/usb", replacing: true)
        }
        if let phy = interface.phy {
            let phyPath = "\(devicePath)/ieee80211/\(phy)"
            try makeDirectories(phyPath)
            try writeFile("\(phyPath)/name", "\(phy)\n")
            try makeDirectories("class/ieee80211")
            try link("\(phyPath)/subsystem", to: "class/ieee80211", replacing: true)
            try link("class/ieee80211/\(phy)", to: phyPath, replacing: true)
            try link("\(directory)/phy80211", to: phyPath)
        }
    }

    /// `devices/…/net/NAME` for hardware, `devices/virtual/net/NAME` otherwise.
    static func directory(of interface: FixtureInterface) -> String {
        guard let device = interface.device else { return "devices/virtual/net/\(interface.name)" }
        return "devices/\(device.path)/net/\(interface.name)"
    }

    static func basename(_ path: String) -> String {
        String(path.split(separator: "/").last ?? Substring(path))
    }

    /// The relative target that reaches `target` from a link placed in directory `from`, written
    /// the kernel's way: up to the nearest common directory that is a strict ancestor of the
    /// target, then down (`device` -> `../../../0000:00:14.3`, not `../..`).
    static func relativeTarget(from: String, to target: String) -> String {
        let fromParts = from.split(separator: "/")
        let targetParts = target.split(separator: "/")
        var common = 0
        while common < fromParts.count, common < targetParts.count - 1, fromParts[common] == targetParts[common] {
            common += 1
        }
        let ups = Array(repeating: "..", count: fromParts.count - common)
        return (ups + targetParts[common...].map(String.init)).joined(separator: "/")
    }

    func makeDirectories(_ relative: String) throws(SysfsFixtureError) {
        var path = root
        for part in relative.split(separator: "/") {
            path += "/\(part)"
            if mkdir(path, 0o755) != 0 && errno != EEXIST {
                throw SysfsFixtureError(operation: "mkdir", path: path, code: errno)
            }
        }
    }

    /// Creates `relative` as a relative symbolic link to `target` (both relative to the root).
    func link(_ relative: String, to target: String, replacing: Bool = false) throws(SysfsFixtureError) {
        let path = "\(root)/\(relative)"
        let parent = relative.split(separator: "/").dropLast().joined(separator: "/")
        if replacing { unlink(path) }
        if symlink(Self.relativeTarget(from: parent, to: target), path) != 0 {
            throw SysfsFixtureError(operation: "symlink", path: path, code: errno)
        }
    }

    func writeFile(_ relative: String, _ contents: String, flags: Int32 = O_TRUNC) throws(SysfsFixtureError) {
        let path = "\(root)/\(relative)"
        let fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | flags, 0o644)
        guard fd >= 0 else { throw SysfsFixtureError(operation: "open", path: path, code: errno) }
        defer { close(fd) }
        var bytes = Array(contents.utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR { continue }
                throw SysfsFixtureError(operation: "write", path: path, code: errno)
            }
            bytes = bytes.dropFirst(written)
        }
    }

    func appendLine(_ relative: String, _ line: String) throws(SysfsFixtureError) {
        try writeFile(relative, "\(line)\n", flags: O_APPEND)
    }

    /// Deletes `path` and everything below it, never following symbolic links.
    static func removeRecursively(_ path: String) {
        var info = stat()
        guard lstat(path, &info) == 0 else { return }
        guard (info.st_mode & S_IFMT) == S_IFDIR else {
            unlink(path)
            return
        }
        if let directory = opendir(path) {
            var names: [String] = []
            while let entry = readdir(directory) {
                let name = withUnsafePointer(to: entry.pointee.d_name) {
                    $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
                }
                if name != "." && name != ".." { names.append(name) }
            }
            closedir(directory)
            for name in names { removeRecursively("\(path)/\(name)") }
        }
        rmdir(path)
    }
}
