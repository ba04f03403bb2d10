import ReachabilityCore

/// Compact constructors for evaluator tables.
enum Link {
    static let running: LinkFlags = [.up, .lowerUp, .running]

    static func make(
        _ name: String, _ index: Int32, kind: String? = nil, flags: LinkFlags = running, master: Int32? = nil,
        parent: Int32? = nil, devtype: String? = nil, driver: String? = nil
    ) -> InterfaceFacts {
        let sysfs = SysfsFacts(deviceType: devtype, hasDevice: driver != nil, driver: driver)
        return InterfaceFacts(
            name: name, index: index, flags: flags, hardwareType: 1, kind: kind, masterIndex: master, parentIndex: parent,
            sysfs: sysfs)
    }

    static let loopback = InterfaceFacts(name: "lo", index: 1, flags: [.up, .lowerUp, .running, .loopback], hardwareType: 772)
    static func wifi(_ name: String = "wlan0", _ index: Int32 = 2, flags: LinkFlags = running) -> InterfaceFacts {
        make(name, index, flags: flags, devtype: "wlan", driver: "iwlwifi")
    }
    static func cellular(_ name: String = "wwan0", _ index: Int32 = 3, flags: LinkFlags = running) -> InterfaceFacts {
        make(name, index, flags: flags, devtype: "wwan", driver: "qmi_wwan")
    }
    static func wired(_ name: String = "eth0", _ index: Int32 = 4, flags: LinkFlags = running, master: Int32? = nil) -> InterfaceFacts {
        make(name, index, flags: flags, master: master, driver: "e1000e")
    }
}

func v4(_ index: Int32, _ address: String = "192.0.2.10") -> InterfaceAddress {
    InterfaceAddress(interfaceIndex: index, family: .ipv4, address: address, prefixLength: 24)
}

func v6(_ index: Int32, _ address: String = "2001:db8::10", scope: InterfaceAddress.Scope = .global, tentative: Bool = false) -> InterfaceAddress {
    InterfaceAddress(interfaceIndex: index, family: .ipv6, address: address, prefixLength: 64, scope: scope, isTentativeOrFailed: tentative)
}

func route4(_ index: Int32, metric: UInt32 = 100, table: UInt32 = 254) -> DefaultRoute {
    DefaultRoute(family: .ipv4, interfaceIndex: index, metric: metric, table: table, gateway: "192.0.2.1")
}

func route6(_ index: Int32, metric: UInt32 = 100) -> DefaultRoute {
    DefaultRoute(family: .ipv6, interfaceIndex: index, metric: metric, gateway: "fe80::1")
}
