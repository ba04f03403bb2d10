/// Decides an interface's ``InterfaceType`` and cost from its ``InterfaceFacts``.
///
/// A pure function. Precedence, strongest first: user override; loopback flag; rtnl kind;
/// `ARPHRD`; `DEVTYPE`; `wireless/` and `phy80211`; modem and driver signals (`qmi/raw_ip`,
/// driver table, `tun_flags`); hardware behind the interface (`device`); the interface name;
/// and finally "software interface" or `other`. Every signal seen is kept as ``Evidence``, so a
/// wrong answer can be explained and overridden.
public struct Classifier: Sendable {
    /// The user's override rules, in order: the first matching rule that sets a type decides the
    /// type, and the first that sets a cost decides the cost, over every kernel signal.
    public var overrides: [OverrideRule]

    /// A classifier that applies `overrides` (from `--override` or the configuration file) on top
    /// of the kernel's signals; with none, the kernel's signals alone decide.
    public init(overrides: [OverrideRule] = []) {
        self.overrides = overrides
    }

    /// Classifies one interface on its own facts.
    public func classify(_ facts: InterfaceFacts) -> Classification {
        var evidence = Self.kernelEvidence(facts)
        var decisive = evidence.firstIndex { $0.suggests != nil }
        var type = decisive.map { evidence[$0].suggests! } ?? .other
        if decisive == nil {
            evidence.append(Evidence(signal: "fallback", value: "no signal", suggests: .other, isDecisive: true))
            decisive = evidence.count - 1
        } else {
            evidence[decisive!].isDecisive = true
        }

        let typeRule = overrides.first { $0.type != nil && $0.matches(facts) }
        if let typeRule, let overriddenType = typeRule.type {
            evidence[decisive!].isDecisive = false
            let overridden = "overridden by \(typeRule)"
            evidence[decisive!].note = evidence[decisive!].note.map { "\($0); \(overridden)" } ?? overridden
            evidence.insert(
                Evidence(signal: "override", value: "\(typeRule) (\(typeRule.origin))", suggests: overriddenType, isDecisive: true),
                at: 0)
            type = overriddenType
        }

        let cost = Self.costEvidence(facts, type: type)
        evidence += cost.evidence
        var expensive = cost.isExpensive
        let costRule = overrides.first { $0.isExpensive != nil && $0.matches(facts) }
        if let costRule, let overriddenCost = costRule.isExpensive {
            expensive = overriddenCost
            let note = (overriddenCost ? "expensive" : "inexpensive") + (cost.evidence.isEmpty ? "" : "; decides the cost over the signals above")
            evidence.append(Evidence(signal: "override", value: "\(costRule) (\(costRule.origin))", note: note))
        }
        return Classification(type: type, isExpensive: expensive, expensiveIsOverridden: costRule != nil, evidence: evidence)
    }

    /// The signals beyond the type that bear on the cost, strongest first (the user's rules
    /// come on top): the USB device's role, a tethering driver, the Wi-Fi network's own signals
    /// (``WifiCost``), DHCP's `ANDROID_METERED`. Any of them makes the interface expensive.
    static func costEvidence(_ facts: InterfaceFacts, type: InterfaceType) -> (evidence: [Evidence], isExpensive: Bool) {
        var evidence: [Evidence] = []
        var expensive = type.isExpensiveByDefault
        if let role = Self.usbRole(facts), role.role.isExpensive, !type.isExpensiveByDefault {
            expensive = true
            evidence.append(Evidence(signal: "cost", value: "usb \(role.entry.maker) \(role.role.summary)", note: "its mobile data: expensive"))
        } else if let driver = facts.sysfs?.driver, ClassificationTables.tetheringDrivers.contains(driver) {
            expensive = true
            evidence.append(Evidence(signal: "cost", value: "driver \(driver)", note: "a phone tethering its mobile data: expensive"))
        }
        if let association = facts.wifi?.association {
            let judgement = WifiCost.judge(association)
            evidence += judgement.evidence
            expensive = expensive || judgement.isMetered
        }
        if let hints = facts.dhcpHints, hints.androidMetered {
            expensive = true
            evidence.append(Evidence(signal: "dhcp", value: "ANDROID_METERED", note: "lease \(hints.leaseFile): a phone's hotspot, metered"))
        }
        return (evidence, expensive)
    }

    /// Classifies a set of interfaces, then lets stacked devices (VLAN, macvlan) take their lower
    /// device's transport and bridges or bonds take their ports' transport, unless overridden.
    public func classify(all interfaces: [InterfaceFacts]) -> [Int32: Classification] {
        classify(all: interfaces, using: classify)
    }

    /// ``classify(all:)`` with each interface's own classification supplied by `single`
    /// (a cache: see ``ClassificationCache``).
    public func classify(all interfaces: [InterfaceFacts], using single: (InterfaceFacts) -> Classification) -> [Int32: Classification] {
        var byIndex: [Int32: Classification] = [:]
        byIndex.reserveCapacity(interfaces.count)
        // Only stacked devices and aggregates can take another interface's transport: a storm of
        // veths (virtual, neither) must not pay for the lookup tables below.
        var inheriting: [Int] = []
        for position in interfaces.indices {
            let own = single(interfaces[position])
            byIndex[interfaces[position].index] = own
            if own.type == .virtual && (Self.isStacked(interfaces[position]) || Self.isAggregate(interfaces[position])) {
                inheriting.append(position)
            }
        }
        guard !inheriting.isEmpty else { return byIndex }
        let factsByIndex = Dictionary(interfaces.map { ($0.index, $0) }, uniquingKeysWith: { first, _ in first })
        var portsByMaster: [Int32: [Int32]] = [:]
        for facts in interfaces { if let master = facts.masterIndex { portsByMaster[master, default: []].append(facts.index) } }

        var resolved = byIndex
        for position in inheriting {
            let facts = interfaces[position]
            resolved[facts.index] = resolve(facts, byIndex: byIndex, facts: factsByIndex, ports: portsByMaster, depth: 0)
        }
        return resolved
    }

    /// A device stacked on one lower device (VLAN, macvlan, …), which takes its transport.
    static func isStacked(_ facts: InterfaceFacts) -> Bool {
        facts.kind.map(ClassificationTables.stackedKinds.contains) ?? (facts.sysfs?.deviceType == "vlan")
    }

    /// A bridge, bond or team, which takes its ports' transport when they agree.
    static func isAggregate(_ facts: InterfaceFacts) -> Bool {
        facts.kind == "bridge" || facts.kind == "bond" || facts.kind == "team" || facts.sysfs?.isBridge == true
            || facts.sysfs?.isBond == true
    }

    private func resolve(
        _ facts: InterfaceFacts, byIndex: [Int32: Classification], facts all: [Int32: InterfaceFacts],
        ports: [Int32: [Int32]], depth: Int
    ) -> Classification {
        guard var own = byIndex[facts.index] else { return classify(facts) }
        guard own.type == .virtual, own.decidedBy?.signal != "override", depth < 4 else { return own }

        let isStacked = Self.isStacked(facts)
        let isAggregate = Self.isAggregate(facts)

        var lower: [(name: String, classification: Classification)] = []
        if isStacked, let parent = facts.parentIndex, parent != facts.index, let parentFacts = all[parent] {
            lower = [(parentFacts.name, resolve(parentFacts, byIndex: byIndex, facts: all, ports: ports, depth: depth + 1))]
        } else if isAggregate {
            lower = (ports[facts.index] ?? []).compactMap { index in
                all[index].map { ($0.name, resolve($0, byIndex: byIndex, facts: all, ports: ports, depth: depth + 1)) }
            }
        }
        let physical = lower.filter { $0.classification.type.isPhysical }
        let types = Set(physical.map(\.classification.type))
        guard types.count == 1, let inherited = types.first else {
            if types.count > 1 {
                let names = physical.map { "\($0.name)(\($0.classification.type))" }.joined(separator: " ")
                own.evidence.append(Evidence(signal: "lower", value: names, note: "mixed transports: stays virtual"))
            }
            return own
        }
        let names = physical.map(\.name).joined(separator: " ")
        for index in own.evidence.indices { own.evidence[index].isDecisive = false }
        own.evidence.append(Evidence(signal: "lower", value: names, suggests: inherited, note: isStacked ? "stacked on it" : "its ports", isDecisive: true))
        own.type = inherited
        if !own.expensiveIsOverridden {
            own.isExpensive = physical.contains { $0.classification.isExpensive }
        }
        return own
    }

    /// The role of the USB device behind an Ethernet-framed interface (tethered phone, modem in
    /// Ethernet mode, Ethernet adapter), from ``USBVendorTable``.
    static func usbRole(_ facts: InterfaceFacts) -> USBVendorMatch? {
        guard let sysfs = facts.sysfs, let vendor = sysfs.usbVendorID, facts.hardwareType == nil || facts.hardwareType == 1 else { return nil }
        return USBVendorTable.match(vendor: vendor, product: sysfs.usbProductID, driver: sysfs.driver)
    }

    /// Every kernel and sysfs signal, in precedence order.
    static func kernelEvidence(_ facts: InterfaceFacts) -> [Evidence] {
        var evidence: [Evidence] = []
        if let flags = facts.flags, flags.contains(.loopback) {
            evidence.append(Evidence(signal: "flags", value: "LOOPBACK", suggests: .loopback))
        }
        if let kind = facts.kind {
            evidence.append(Evidence(signal: "kind", value: kind, suggests: ClassificationTables.kinds[kind], note: ClassificationTables.kinds[kind] == nil ? "unknown kind" : nil))
        }
        if let arp = facts.hardwareType {
            if let (type, note) = ClassificationTables.hardwareTypes[arp] {
                evidence.append(Evidence(signal: "ARPHRD", value: String(arp), suggests: type, note: note))
            } else {
                evidence.append(Evidence(signal: "ARPHRD", value: String(arp), note: ClassificationTables.hardwareTypeNames[arp]))
            }
        }
        guard let sysfs = facts.sysfs else {
            appendNameEvidence(facts.name, to: &evidence)
            return evidence
        }
        if let devtype = sysfs.deviceType {
            evidence.append(Evidence(signal: "DEVTYPE", value: devtype, suggests: ClassificationTables.deviceTypes[devtype]))
        }
        if sysfs.hasPhy80211 {
            evidence.append(Evidence(signal: "phy80211", value: "present", suggests: .wifi, note: "cfg80211 device"))
        }
        if sysfs.hasWirelessDirectory {
            evidence.append(Evidence(signal: "wireless", value: "present", suggests: .wifi))
        }
        if let raw = sysfs.qmiRawIP {
            evidence.append(Evidence(signal: "qmi", value: raw ? "raw_ip=Y" : "raw_ip=N", suggests: .cellular, note: "qmi_wwan modem"))
        }
        if let driver = sysfs.driver {
            evidence.append(Evidence(signal: "driver", value: driver, suggests: ClassificationTables.drivers[driver]))
        }
        if let vendor = sysfs.usbVendorID {
            let ids = sysfs.usbProductID.map { "\(vendor):\($0)" } ?? vendor
            if let match = usbRole(facts) {
                evidence.append(Evidence(
                    signal: "usb", value: ids, suggests: match.role.suggestedType,
                    note: "\(match.entry.maker) \(match.role.summary), by \(match.rule)"))
            } else {
                evidence.append(Evidence(signal: "usb", value: ids))
            }
        }
        if let tunFlags = sysfs.tunFlags {
            let tap = tunFlags & 0x2 != 0
            evidence.append(Evidence(signal: "tun_flags", value: "0x" + String(tunFlags, radix: 16), suggests: .tunnel, note: tap ? "tap" : "tun"))
        }
        if sysfs.isBridge { evidence.append(Evidence(signal: "bridge", value: "present", suggests: .virtual)) }
        if sysfs.isBond { evidence.append(Evidence(signal: "bonding", value: "present", suggests: .virtual)) }
        let etherLike = facts.hardwareType == nil || facts.hardwareType == 1
        if sysfs.hasDevice {
            let bus = sysfs.bus ?? "unknown bus"
            evidence.append(Evidence(
                signal: "device", value: [bus, sysfs.driver].compactMap { $0 }.joined(separator: "/"),
                suggests: etherLike ? .wired : nil, note: "hardware behind it"))
        }
        if !sysfs.hasDevice && etherLike {
            evidence.append(Evidence(signal: "device", value: "none", suggests: .virtual, note: "software interface"))
        }
        appendNameEvidence(facts.name, to: &evidence)
        return evidence
    }

    private static func appendNameEvidence(_ name: String, to evidence: inout [Evidence]) {
        if let match = ClassificationTables.namePrefixes.first(where: { name.hasPrefix($0.prefix) }) {
            evidence.append(Evidence(signal: "name", value: name, suggests: match.type, note: "prefix '\(match.prefix)', a guess"))
        }
    }
}
