/// One address configured on an interface (`RTM_NEWADDR`).
public struct InterfaceAddress: Sendable, Hashable {
    /// Scope of an address, as the kernel reports it (`ifa_scope`).
    public enum Scope: String, Sendable, Hashable {
        case global, site, link, host
    }

    public var interfaceIndex: Int32
    public var family: AddressFamily
    /// The address in its textual form, without prefix.
    public var address: String
    public var prefixLength: Int
    public var scope: Scope
    /// Duplicate address detection has not finished or has failed: not usable as a source.
    public var isTentativeOrFailed: Bool

    public init(
        interfaceIndex: Int32, family: AddressFamily, address: String, prefixLength: Int,
        scope: Scope = .global, isTentativeOrFailed: Bool = false
    ) {
        self.interfaceIndex = interfaceIndex
        self.family = family
        self.address = address
        self.prefixLength = prefixLength
        self.scope = scope
        self.isTentativeOrFailed = isTentativeOrFailed
    }

    /// `address/prefix`, as `ip addr` prints it.
    public var cidr: String { "\(address)/\(prefixLength)" }

    /// An address that traffic to the Internet can be sourced from.
    public var isUsableForInternet: Bool { scope == .global && !isTentativeOrFailed }
}
