/// The kernel's networking state at one moment: the input of ``PathEvaluator``.
public struct NetworkSnapshot: Sendable, Hashable {
    public var interfaces: [InterfaceFacts]
    public var addresses: [InterfaceAddress]
    public var defaultRoutes: [DefaultRoute]
    /// Kernel route lookups towards the probe addresses, one per family at most.
    public var lookups: [RouteLookup]

    public init(
        interfaces: [InterfaceFacts] = [], addresses: [InterfaceAddress] = [], defaultRoutes: [DefaultRoute] = [],
        lookups: [RouteLookup] = []
    ) {
        self.interfaces = interfaces
        self.addresses = addresses
        self.defaultRoutes = defaultRoutes
        self.lookups = lookups
    }
}
