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

    /// An address that traffic beyond the link can be sourced from: global scope (the kernel
    /// gives unique local IPv6 addresses that scope too), duplicate address detection done.
    public var isUsableAsSource: Bool { scope == .global && !isTentativeOrFailed }

    /// A unique local IPv6 address (`fc00::/7`, RFC 4193): routable inside a site, never on the
    /// Internet.
    public var isUniqueLocal: Bool {
        guard family == .ipv6, let first = IPPrefix.ipv6Bytes(address)?.first else { return false }
        return first & 0xFE == 0xFC
    }

    /// An address that traffic to the Internet can be sourced from: usable as a source and not
    /// unique local (as Android and Chromium judge IPv6: a host with only `fd00::/8` has no
    /// Internet IPv6).
    public var isUsableForInternet: Bool { isUsableAsSource && !isUniqueLocal }
}
