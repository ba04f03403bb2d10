internal import CNetlink
import Glibc
public import ReachabilityCore

/// Reads the kernel's current state once, without a watcher thread: for `reach status`.
public enum NetlinkSnapshotReader {
    /// Dumps links, addresses and default routes, runs the route lookups and reads sysfs.
    public static func read(_ configuration: NetlinkConfiguration = NetlinkConfiguration()) throws(NetlinkError) -> NetworkSnapshot {
        try read(configuration, towards: [])
    }

    /// The current state, with `lookups` and `markedLookups` towards `destinations` (addresses)
    /// instead of the probes when any are given: for "which way would traffic to X go?".
    public static func read(_ configuration: NetlinkConfiguration = NetlinkConfiguration(), towards destinations: [String]) throws(NetlinkError) -> NetworkSnapshot {
        guard let namespace = configuration.namespace else { return try readHere(configuration, destinations: destinations) }
        let outcome: Result<NetworkSnapshot, NetlinkError> = OwnerThread.run(name: "reach-snapshot") {
            do throws(NamespaceError) {
                try namespace.enterOnCurrentThread()
            } catch {
                return .failure(NetlinkError("enter namespace", errno: error.errno))
            }
            return Result { () throws(NetlinkError) in try readHere(configuration, destinations: destinations) }
        }
        return try outcome.get()
    }

    private static func readHere(_ configuration: NetlinkConfiguration, destinations: [String] = []) throws(NetlinkError) -> NetworkSnapshot {
        let socket = try NetlinkSocket()
        var linkCache: OpaquePointer?
        var result = rtnl_link_alloc_cache(socket.handle, AF_UNSPEC, &linkCache)
        guard result == 0, let linkCache else { throw NetlinkError("dump links", libnl: result) }
        defer { nl_cache_free(linkCache) }
        var addressCache: OpaquePointer?
        result = rtnl_addr_alloc_cache(socket.handle, &addressCache)
        guard result == 0, let addressCache else { throw NetlinkError("dump addresses", libnl: result) }
        defer { nl_cache_free(addressCache) }

        let table = LinkTable(sysfs: configuration.sysfs, leases: configuration.leases)
        table.rebuild(linkCache: linkCache, addressCache: addressCache)
        // Only a machine with a Wi-Fi interface pays for the generic-netlink socket.
        let wifiInterfaces = table.takeWifiCandidates()
        if configuration.readsWifiFacts, !wifiInterfaces.isEmpty, let wifi = Nl80211Queries() {
            for index in wifiInterfaces { table.setWifi(wifi.facts(for: index), for: index) }
        }
        let queries = try RouteQueries()
        try table.refreshRoutes(queries, probes: configuration.probes, dump: true)
        var snapshot = table.snapshot()
        if !destinations.isEmpty {
            (snapshot.lookups, snapshot.markedLookups) = queries.lookups(destinations, marks: table.ruleMarks)
        }
        return snapshot
    }
}
