public import ReachabilityCore

/// Reads `/sys/class/net` (or the same layout under another root) into facts.
///
/// The root is injectable so tests can classify fixture trees and so a bug report's tarball of
/// `/sys/class/net` can be classified offline.
public struct SysfsReader: Sendable {
    /// The directory that stands for `/sys`.
    public var root: String

    public init(root: String = "/sys") {
        self.root = FileSystem.normalizedRoot(root)
    }

    /// `ROOT/class/net`.
    public var netClassDirectory: String { "\(root)/class/net" }

    /// Sysfs facts for the interface `name`, or nil if sysfs has no such interface.
    ///
    /// When `index` or `macAddress` is given and sysfs disagrees, the entry belongs to another
    /// network namespace (sysfs shows the namespace it was mounted in) and nil is returned.
    public func facts(forInterface name: String, index: Int32? = nil, macAddress: String? = nil) -> SysfsFacts? {
        let directory = "\(netClassDirectory)/\(name)"
        guard FileSystem.exists(directory) else { return nil }
        if let index, let own = FileSystem.readValue("\(directory)/ifindex").flatMap({ Int32($0) }), own != index {
            return nil
        }
        if let macAddress, let own = FileSystem.readValue("\(directory)/address"), own.lowercased() != macAddress.lowercased() {
            return nil
        }
        var facts = SysfsFacts()
        if let uevent = FileSystem.read("\(directory)/uevent") {
            for line in uevent.split(separator: "\n") where line.hasPrefix("DEVTYPE=") {
                facts.deviceType = String(line.dropFirst("DEVTYPE=".count))
            }
        }
        facts.hasWirelessDirectory = FileSystem.isDirectory("\(directory)/wireless")
        facts.hasPhy80211 = FileSystem.exists("\(directory)/phy80211")
        facts.isBridge = FileSystem.isDirectory("\(directory)/bridge")
        facts.isBond = FileSystem.isDirectory("\(directory)/bonding")
        if let tunFlags = FileSystem.readValue("\(directory)/tun_flags") {
            facts.tunFlags = UInt32(tunFlags.hasPrefix("0x") ? String(tunFlags.dropFirst(2)) : tunFlags, radix: 16)
        }
        if let rawIP = FileSystem.readValue("\(directory)/qmi/raw_ip") {
            facts.qmiRawIP = rawIP == "Y" || rawIP == "1"
        }
        let device = "\(directory)/device"
        if FileSystem.exists(device) {
            facts.hasDevice = true
            facts.driver = FileSystem.linkTarget("\(device)/driver").map(FileSystem.basename)
            facts.bus = FileSystem.linkTarget("\(device)/subsystem").map(FileSystem.basename)
            readUSBIdentity(device: device, into: &facts)
        }
        return facts
    }

    /// Walks up from the interface's device to the USB device that carries `idVendor`.
    private func readUSBIdentity(device: String, into facts: inout SysfsFacts) {
        guard var path = FileSystem.resolve(device) else { return }
        for _ in 0..<4 {
            if let vendor = FileSystem.readValue("\(path)/idVendor") {
                facts.usbVendorID = vendor.lowercased()
                facts.usbProductID = FileSystem.readValue("\(path)/idProduct")?.lowercased()
                if facts.bus == nil || facts.bus == "usb" { facts.bus = "usb" }
                return
            }
            path = FileSystem.parent(path)
            if path == "/" || path.count <= root.count { return }
        }
    }

    /// Every interface under `class/net`, with what sysfs alone tells (no rtnl kind, no master).
    public func offlineInterfaces() throws(SysfsError) -> [InterfaceFacts] {
        guard let names = FileSystem.list(netClassDirectory) else {
            throw SysfsError(path: netClassDirectory, reason: "not a readable directory")
        }
        var result: [InterfaceFacts] = []
        for name in names {
            let directory = "\(netClassDirectory)/\(name)"
            guard FileSystem.isDirectory(directory) else { continue }
            let index = FileSystem.readValue("\(directory)/ifindex").flatMap { Int32($0) } ?? 0
            let flags = FileSystem.readValue("\(directory)/flags").flatMap { parseHex($0) }.map { LinkFlags(rawValue: $0) }
            let carrier = FileSystem.readValue("\(directory)/carrier") == "1"
            let operstate = FileSystem.readValue("\(directory)/operstate").flatMap(OperationalState.init(rawValue:))
            var published = flags
            // sysfs `flags` is dev->flags: it lacks LOWER_UP and RUNNING, which `carrier` and
            // `operstate` carry.
            if carrier, published != nil {
                published!.insert(.lowerUp)
                if operstate == .up || operstate == .unknown { published!.insert(.running) }
            }
            let master = FileSystem.linkTarget("\(directory)/master").map(FileSystem.basename)
            let masterIndex = master.flatMap { FileSystem.readValue("\(netClassDirectory)/\($0)/ifindex") }.flatMap { Int32($0) }
            let iflink = FileSystem.readValue("\(directory)/iflink").flatMap { Int32($0) }
            result.append(InterfaceFacts(
                name: name, index: index, flags: published,
                operationalState: operstate,
                hardwareType: FileSystem.readValue("\(directory)/type").flatMap { UInt16($0) },
                masterIndex: masterIndex, parentIndex: iflink == index ? nil : iflink,
                macAddress: FileSystem.readValue("\(directory)/address"),
                sysfs: facts(forInterface: name)))
        }
        return result.sorted { $0.index < $1.index }
    }

    private func parseHex(_ text: String) -> UInt32? {
        UInt32(text.hasPrefix("0x") ? String(text.dropFirst(2)) : text, radix: 16)
    }
}

/// A sysfs tree that cannot be read.
public struct SysfsError: Error, Sendable, Hashable, CustomStringConvertible {
    public var path: String
    /// Why, without the path: `not a readable directory`.
    public var reason: String
    public var description: String { "\(path): \(reason)" }
}
