internal import CNetlink
import Glibc
import ReachabilityCore

/// The mirror of the kernel's links, addresses and default routes that a snapshot is made from.
///
/// Updated object by object from libnl change callbacks, rebuilt whole after a resync. Sysfs
/// is read once per (index, name) and kept, since a storm of new links must not re-read it.
final class LinkTable {
    private let sysfs: SysfsReader
    private let leases: DHCPLeaseReader?
    /// DHCP hints per interface, re-read when the interface gains an IPv4 address.
    private var leaseHints: [Int32: DHCPHints] = [:]
    private(set) var links: [Int32: InterfaceFacts] = [:]
    private var addresses: [AddressKey: InterfaceAddress] = [:]
    var defaultRoutes: [DefaultRoute] = []
    var lookups: [RouteLookup] = []
    var markedLookups: [RouteLookup] = []
    /// Firewall marks tested by policy rules, refreshed with the default routes.
    var ruleMarks: [UInt32] = []
    private var sysfsCache: [Int32: (name: String, facts: SysfsFacts?)] = [:]
    /// Wi-Fi facts per interface, from nl80211 (kept across link updates, like the lease hints).
    private var wifi: [Int32: WifiFacts] = [:]
    /// Interfaces that look like Wi-Fi and appeared or were renamed since the last
    /// ``takeWifiCandidates()``: their nl80211 facts are read.
    private var wifiCandidates: Set<Int32> = []
    /// Indices whose per-family link objects libnl keeps after the link is gone.
    private(set) var deletedIndices: [Int32] = []

    /// Something that can change a route decision happened since the last `takeChanges()`.
    private(set) var routeRelevantChange = false
    private(set) var changed = false

    private struct AddressKey: Hashable {
        var index: Int32
        var family: AddressFamily
        var address: String
        var prefixLength: Int
    }

    init(sysfs: SysfsReader, leases: DHCPLeaseReader? = nil) {
        self.sysfs = sysfs
        self.leases = leases
    }

    /// Applies one libnl change callback.
    /// The last counters of links deleted since the last ``takeRemovedCounters()``.
    private var removedCounters: [InterfaceCounters] = []

    func takeRemovedCounters() -> [InterfaceCounters] {
        defer { removedCounters = [] }
        return removedCounters
    }

    func apply(object: OpaquePointer, action: Int32) {
        let type = LibnlObjects.typeName(object)
        if type == LibnlObjects.linkType {
            applyLink(object, deleted: action == Int32(NL_ACT_DEL))
        } else if type == LibnlObjects.addressType {
            applyAddress(object, deleted: action == Int32(NL_ACT_DEL))
        }
    }

    private func applyLink(_ object: OpaquePointer, deleted: Bool) {
        guard var facts = LibnlObjects.interfaceFacts(link: object) else { return }
        let carriesDefault = defaultRoutes.contains { $0.interfaceIndex == facts.index }
        changed = true
        if deleted {
            // The cached object's counters: the last the kernel sent (its final link message
            // before the deletion carries them).
            if let last = LibnlObjects.counters(link: object, removed: true) { removedCounters.append(last) }
            links[facts.index] = nil
            sysfsCache[facts.index] = nil
            leaseHints[facts.index] = nil
            wifi[facts.index] = nil
            addresses = addresses.filter { $0.key.index != facts.index }
            deletedIndices.append(facts.index)
            if carriesDefault { routeRelevantChange = true }
            return
        }
        let previous = links[facts.index]
        facts.sysfs = sysfsFacts(for: facts)
        facts.dhcpHints = leaseHints[facts.index]
        facts.wifi = wifi[facts.index]
        links[facts.index] = facts
        // New or renamed: read once; after that nl80211's own events say when to read again.
        if Self.looksLikeWifi(facts), previous?.name != facts.name { wifiCandidates.insert(facts.index) }
        // Routes through a link that goes down vanish without RTM_DELROUTE: re-dump then.
        if carriesDefault && previous?.flags != facts.flags { routeRelevantChange = true }
    }

    private func applyAddress(_ object: OpaquePointer, deleted: Bool) {
        guard let address = LibnlObjects.interfaceAddress(object) else { return }
        let key = AddressKey(index: address.interfaceIndex, family: address.family, address: address.address, prefixLength: address.prefixLength)
        addresses[key] = deleted ? nil : address
        changed = true
        // A new IPv4 address usually follows a DHCP exchange: its lease is on disk now.
        if !deleted, address.family == .ipv4 { refreshLease(address.interfaceIndex) }
        if defaultRoutes.contains(where: { $0.interfaceIndex == address.interfaceIndex }) || deleted { routeRelevantChange = true }
    }

    private func sysfsFacts(for facts: InterfaceFacts) -> SysfsFacts? {
        // A known rtnl kind decides the type before any sysfs signal, and software links have
        // no driver or USB ids for rules to match: sysfs is read only for hardware. This keeps
        // a storm of veths from costing a dozen file-system lookups each.
        if let kind = facts.kind, ClassificationTables.kinds[kind] != nil { return nil }
        if let cached = sysfsCache[facts.index], cached.name == facts.name { return cached.facts }
        let read = sysfs.facts(forInterface: facts.name, index: facts.index, macAddress: facts.macAddress)
        sysfsCache[facts.index] = (facts.name, read)
        return read
    }

    /// Replaces everything with the contents of libnl caches (initial fill, after a resync).
    func rebuild(linkCache: OpaquePointer, addressCache: OpaquePointer) {
        var fresh: [Int32: InterfaceFacts] = [:]
        LibnlObjects.forEach(linkCache) { object in
            if var facts = LibnlObjects.interfaceFacts(link: object) {
                facts.sysfs = sysfsFacts(for: facts)
                facts.wifi = wifi[facts.index]
                if Self.looksLikeWifi(facts) { wifiCandidates.insert(facts.index) }
                fresh[facts.index] = facts
            }
        }
        var freshAddresses: [AddressKey: InterfaceAddress] = [:]
        LibnlObjects.forEach(addressCache) { object in
            if let address = LibnlObjects.interfaceAddress(object) {
                freshAddresses[AddressKey(index: address.interfaceIndex, family: address.family, address: address.address, prefixLength: address.prefixLength)] = address
            }
        }
        links = fresh
        wifi = wifi.filter { fresh[$0.key] != nil }
        addresses = freshAddresses
        leaseHints = [:]
        for index in Set(freshAddresses.values.filter { $0.family == .ipv4 }.map(\.interfaceIndex)) { refreshLease(index) }
        sysfsCache = sysfsCache.filter { fresh[$0.key]?.name == $0.value.name }
        changed = true
        routeRelevantChange = true
    }

    private func refreshLease(_ index: Int32) {
        guard let leases, var facts = links[index] else { return }
        let current = addresses.values.filter { $0.interfaceIndex == index && $0.family == .ipv4 }.map(\.address)
        let hints = leases.hints(interface: facts.name, index: index, currentIPv4: current)
        guard hints != leaseHints[index] else { return }
        leaseHints[index] = hints
        facts.dhcpHints = hints
        links[index] = facts
    }

    /// A cfg80211 device by sysfs (`phy80211`, `DEVTYPE=wlan`, `wireless/`): worth asking nl80211 about.
    static func looksLikeWifi(_ facts: InterfaceFacts) -> Bool {
        guard let sysfs = facts.sysfs else { return false }
        return sysfs.hasPhy80211 || sysfs.deviceType == "wlan" || sysfs.hasWirelessDirectory
    }

    /// The Wi-Fi-looking interfaces to read nl80211 facts for, since the last call.
    func takeWifiCandidates() -> Set<Int32> {
        defer { wifiCandidates.removeAll(keepingCapacity: true) }
        return wifiCandidates
    }

    /// Every interface that has Wi-Fi facts or looks like Wi-Fi (after lost nl80211 events).
    var allWifiInterfaces: Set<Int32> {
        Set(wifi.keys).union(links.values.filter(Self.looksLikeWifi).map(\.index))
    }

    /// Wi-Fi stations associated and able to carry traffic.
    var carryingStations: Set<Int32> {
        Set(wifi.keys.filter { links[$0]?.wifi?.association != nil && links[$0]?.canCarryTraffic == true })
    }

    /// Records what nl80211 says of interface `index` (nil: no Wi-Fi facts); a change is published.
    func setWifi(_ facts: WifiFacts?, for index: Int32) {
        guard wifi[index] != facts else { return }
        wifi[index] = facts
        guard var link = links[index] else { return }
        link.wifi = facts
        links[index] = link
        changed = true
    }

    /// Clears the change flags; returns whether anything changed and whether routes may have.
    func takeChanges() -> (changed: Bool, routes: Bool) {
        defer {
            changed = false
            routeRelevantChange = false
        }
        return (changed, routeRelevantChange)
    }

    func takeDeletedIndices() -> [Int32] {
        defer { deletedIndices.removeAll() }
        return deletedIndices
    }

    /// Re-dumps default routes and rule marks (when `dump`) and re-runs the probe lookups.
    func refreshRoutes(_ queries: RouteQueries, probes: RouteProbes, dump: Bool, dumpRules: Bool = true) throws(NetlinkError) {
        if dump { defaultRoutes = try queries.defaultRoutes() }
        if dumpRules { ruleMarks = try queries.ruleMarks() }
        // A family without a global address anywhere cannot be reachable: no lookup needed.
        var probed: [String] = []
        if hasGlobalAddress(.ipv4) { probed.append(probes.ipv4) }
        if hasGlobalAddress(.ipv6) { probed.append(probes.ipv6) }
        (lookups, markedLookups) = queries.lookups(probed, marks: ruleMarks)
    }

    private func hasGlobalAddress(_ family: AddressFamily) -> Bool {
        addresses.values.contains { $0.family == family && $0.isUsableForInternet }
    }

    func snapshot() -> NetworkSnapshot {
        NetworkSnapshot(
            // Sorting the indices, not the facts: moving 2,000 fat values was a sixth of a storm's CPU.
            interfaces: links.keys.sorted().map { links[$0]! },
            addresses: addresses.values.sorted { ($0.interfaceIndex, $0.address) < ($1.interfaceIndex, $1.address) },
            defaultRoutes: defaultRoutes, lookups: lookups, markedLookups: markedLookups)
    }
}
