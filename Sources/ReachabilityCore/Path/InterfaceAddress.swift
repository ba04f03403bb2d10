/// One address configured on an interface (`RTM_NEWADDR`).
public struct InterfaceAddress: Sendable, Hashable {
    /// Scope of an address, as the kernel reports it (`ifa_scope`).
    public enum Scope: String, Sendable, Hashable {
        case global, site, link, host
    }

    /// The index of the interface the address is configured on.
    public var interfaceIndex: Int32
    /// IPv4 or IPv6.
    public var family: AddressFamily
    /// The address in its textual form, without prefix.
    public var address: String
    /// The length of the on-link prefix, in bits (`24` in `192.168.1.10/24`).
    public var prefixLength: Int
    /// Only ``Scope-swift.enum/global`` addresses can source traffic to the Internet.
    public var scope: Scope
    /// Duplicate address detection has not finished or has failed: not usable as a source.
    public var isTentativeOrFailed: Bool

    /// An address; global and usable unless told otherwise.
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
