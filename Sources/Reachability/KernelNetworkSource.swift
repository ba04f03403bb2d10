public import ReachabilityCore
import ReachabilityLinux

/// The kernel, through netlink (libnl) and sysfs: the source every ``NetworkMonitor`` built
/// from a ``MonitorConfiguration`` uses.
public struct KernelNetworkSource: NetworkStateSource {
    public var configuration: MonitorConfiguration

    public init(configuration: MonitorConfiguration = MonitorConfiguration()) {
        self.configuration = configuration
    }

    public func snapshot() throws -> NetworkSnapshot {
        try NetlinkSnapshotReader.read(try netlinkConfiguration())
    }

    public func snapshot(towards destinations: [String]) throws -> NetworkSnapshot {
        try NetlinkSnapshotReader.read(try netlinkConfiguration(), towards: destinations)
    }

    public func start(_ handler: @escaping @Sendable (NetworkSnapshot) -> Void) throws -> any NetworkStateSubscription {
        WatcherSubscription(watcher: try NetlinkWatcher(configuration: try netlinkConfiguration(), onSnapshot: handler))
    }

    /// Opens the namespace, if any: done at each start so a configuration stays a plain value.
    private func netlinkConfiguration() throws(MonitorConfigurationError) -> NetlinkConfiguration {
        var netlink = NetlinkConfiguration(
            sysfs: SysfsReader(root: configuration.sysfsRoot), probes: configuration.routeProbes,
            receiveBufferBytes: configuration.receiveBufferBytes, leases: configuration.leaseRoot.map { DHCPLeaseReader(root: $0) })
        if let path = configuration.namespacePath {
            do throws(NamespaceError) {
                netlink.namespace = try NetworkNamespace(path: path)
            } catch {
                throw MonitorConfigurationError(setting: "namespace", value: path, reason: error.reason)
            }
        }
        return netlink
    }
}

struct WatcherSubscription: NetworkStateSubscription {
    let watcher: NetlinkWatcher
    func cancel() { watcher.stop() }
}
