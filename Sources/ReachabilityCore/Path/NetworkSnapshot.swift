/// The kernel's networking state at one moment: the input of ``PathEvaluator``.
public struct NetworkSnapshot: Sendable, Hashable {
    /// Every interface's facts (links, sysfs, DHCP hints), normally in index order.
    public var interfaces: [InterfaceFacts]
    /// Every configured address, of every interface.
    public var addresses: [InterfaceAddress]
    /// The default routes of every routing table, one per next hop.
    public var defaultRoutes: [DefaultRoute]
    /// Kernel route lookups towards the probe addresses, one per family at most.
    public var lookups: [RouteLookup]
    /// The same lookups repeated with each firewall mark that policy rules test (`ip rule …
    /// fwmark`): where a VPN's own, marked, traffic goes. In rule priority order.
    public var markedLookups: [RouteLookup]

    /// A snapshot given part by part; everything left out is empty.
    public init(
        interfaces: [InterfaceFacts] = [], addresses: [InterfaceAddress] = [], defaultRoutes: [DefaultRoute] = [],
        lookups: [RouteLookup] = [], markedLookups: [RouteLookup] = []
    ) {
        self.interfaces = interfaces
        self.addresses = addresses
        self.defaultRoutes = defaultRoutes
        self.lookups = lookups
        self.markedLookups = markedLookups
    }
}
