public import ReachabilityCore

/// How a ``NetworkMonitor`` reads the kernel, classifies interfaces and paces its updates.
///
/// Every knob is a plain value, so a configuration can be built, compared and logged without
/// touching the system; files and namespaces are opened when the monitor starts.
public struct MonitorConfiguration: Sendable, Hashable {
    /// User rules that beat every kernel signal, first match wins (see `OverrideRule`).
    public var overrides: [OverrideRule]
    /// Quiet time a change must survive before ``NetworkMonitor/paths`` publishes it; `.zero`
    /// publishes every change at once. The initial path is never delayed.
    public var debounce: Duration
    /// The directory that stands for `/sys` (a copy of another machine's, or a test fixture).
    public var sysfsRoot: String
    /// The directory that stands for `/` when looking for DHCP client leases (metered hints);
    /// nil reads no leases.
    public var leaseRoot: String?
    /// Watch this network namespace instead of the process's own: a path such as
    /// `/run/netns/NAME` (see ``namespacePath(named:)``) or `/proc/PID/ns/net`.
    public var namespacePath: String?
    /// The destinations of the kernel route lookups that find the egress interface.
    public var routeProbes: RouteProbes
    /// Receive buffer of the event sockets. libnl's default is 32 KiB, which about 20 veth
    /// pairs created at once overflow.
    public var receiveBufferBytes: Int
    /// Connectivity validation: what to probe and how often. Off (nil or no endpoints) by
    /// default, and then nothing is ever sent; the monitor also needs a ``ConnectivityProber``.
    public var validation: ConnectivityValidation?
    /// Read Wi-Fi facts (network name, access point, signal, the beacon's cost signals) over
    /// nl80211. Off, Wi-Fi interfaces are classified from sysfs, DHCP and the user's rules
    /// alone: no SSID is read, and a phone's hotspot is known only from its DHCP hint.
    public var readsWifiFacts: Bool = true
    /// Report every interface's byte counters (``NetworkMonitor/interfaceCounters()``) after
    /// each change and from one link dump this often; nil (the default): no counters.
    public var counterInterval: Duration?

    /// A configuration; by default the process's own namespace, the real `/sys` and `/`, no
    /// override rules, no debounce, the default route probes, a 4 MiB receive buffer and no
    /// connectivity probes.
    public init(
        overrides: [OverrideRule] = [], debounce: Duration = .zero, sysfsRoot: String = "/sys", leaseRoot: String? = "/",
        namespacePath: String? = nil, routeProbes: RouteProbes = RouteProbes(), receiveBufferBytes: Int = 4 << 20,
        validation: ConnectivityValidation? = nil
    ) {
        self.overrides = overrides
        self.debounce = debounce
        self.sysfsRoot = sysfsRoot
        self.leaseRoot = leaseRoot
        self.namespacePath = namespacePath
        self.routeProbes = routeProbes
        self.receiveBufferBytes = receiveBufferBytes
        self.validation = validation
    }

    /// The path of a namespace created by `ip netns add NAME`.
    public static func namespacePath(named name: String) -> String { "/run/netns/\(name)" }
}

/// A configuration that cannot be used: a namespace that cannot be opened, a sysfs root that is
/// not a directory. The monitor reports it when it starts; the CLI exits 64 for it.
public struct MonitorConfigurationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The setting at fault, as the CLI names it: `namespace`, `sysfs root`.
    public var setting: String
    /// The value given.
    public var value: String
    /// Why it cannot be used, in the system's words (`No such file or directory`).
    public var reason: String

    /// An error about `setting` given as `value`.
    public init(setting: String, value: String, reason: String) {
        self.setting = setting
        self.value = value
        self.reason = reason
    }

    public var description: String { "\(setting) \(value): \(reason)" }
}

/// A host name given to ``NetworkMonitor/routes(to:)`` that does not resolve.
public struct HostResolutionError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The name as given.
    public var host: String
    /// The resolver's words: `Name or service not known`.
    public var reason: String

    /// An error about `host`, with the resolver's `reason`.
    public init(host: String, reason: String) {
        self.host = host
        self.reason = reason
    }

    public var description: String { "cannot resolve '\(host)': \(reason)" }
}
