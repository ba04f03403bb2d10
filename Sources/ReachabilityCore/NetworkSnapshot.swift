/// The kernel's networking state at one moment: the input of ``PathEvaluator``.
public struct NetworkSnapshot: Sendable, Hashable {
    public var interfaces: [InterfaceFacts]
    public var addresses: [InterfaceAddress]
    public var defaultRoutes: [DefaultRoute]
    /// Kernel route lookups towards the probe addresses, one per family at most.
    public var lookups: [RouteLookup]
    /// The same lookups repeated with each firewall mark that policy rules test (`ip rule …
    /// fwmark`): where a VPN's own, marked, traffic goes. In rule priority order.
    public var markedLookups: [RouteLookup]

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
