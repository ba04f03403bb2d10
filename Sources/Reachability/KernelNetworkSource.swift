public import ReachabilityCore
public import ReachabilityLinux

/// The kernel, through netlink (libnl) and sysfs.
public struct KernelNetworkSource: NetworkStateSource {
    public var configuration: NetlinkConfiguration

    public init(configuration: NetlinkConfiguration = NetlinkConfiguration()) {
        self.configuration = configuration
    }

    public func snapshot() throws -> NetworkSnapshot {
        try NetlinkSnapshotReader.read(configuration)
    }

    public func snapshot(towards destinations: [String]) throws -> NetworkSnapshot {
        try NetlinkSnapshotReader.read(configuration, towards: destinations)
    }

    public func start(_ handler: @escaping @Sendable (NetworkSnapshot) -> Void) throws -> any NetworkStateSubscription {
        WatcherSubscription(watcher: try NetlinkWatcher(configuration: configuration, onSnapshot: handler))
    }
}

struct WatcherSubscription: NetworkStateSubscription {
    let watcher: NetlinkWatcher
    func cancel() { watcher.stop() }
}
