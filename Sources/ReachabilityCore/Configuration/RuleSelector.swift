/// Which interfaces an ``OverrideRule`` applies to.
///
/// Written before the `=` of a rule: a bare glob matches interface names; a prefix selects by
/// another fact: `name:GLOB`, `driver:GLOB`, `usb:VENDOR[:PRODUCT]` (hex ids), `mac:ADDRESS`,
/// `dhcp:android-metered` (the interface's DHCP lease carries Android's metered hint), or
/// `ssid:GLOB` (the Wi-Fi network a station is associated with: "this network is metered").
public enum RuleSelector: Sendable, Hashable, CustomStringConvertible {
    /// Interfaces whose name matches the glob (a bare glob, or `name:GLOB`).
    case name(Glob)
    /// Interfaces whose kernel driver (sysfs `device/driver`) matches the glob: `driver:GLOB`.
    case driver(Glob)
    /// USB devices with this vendor id and, when given, product id (lower-case hex): `usb:VENDOR[:PRODUCT]`.
    case usb(vendor: String, product: String?)
    /// The interface with this link-layer address (lower case): `mac:ADDRESS`.
    case mac(String)
    /// Interfaces whose DHCP lease carries Android's metered hint: `dhcp:android-metered`.
    case androidMeteredLease
    /// Wi-Fi stations associated with a network whose SSID (as text) matches the glob: `ssid:GLOB`.
    case ssid(Glob)

    /// Parses the text before the `=`; a failure with the reason when it is malformed. A text
    /// without a known prefix is a name glob (interface names may contain a colon).
    public static func parse(_ text: String) -> Result<RuleSelector, SelectorError> {
        func glob(_ pattern: Substring) -> Result<Glob, SelectorError> {
            guard !pattern.isEmpty else { return .failure(SelectorError("empty pattern")) }
            guard let glob = Glob(String(pattern)) else { return .failure(SelectorError("unclosed '[' in pattern '\(pattern)'")) }
            return .success(glob)
        }
        guard let colon = text.firstIndex(of: ":") else { return glob(Substring(text)).map(RuleSelector.name) }
        let value = text[text.index(after: colon)...]
        switch text[..<colon].lowercased() {
        case "name": return glob(value).map(RuleSelector.name)
        case "driver": return glob(value).map(RuleSelector.driver)
        case "usb":
            let ids = value.split(separator: ":", omittingEmptySubsequences: false).map { $0.lowercased() }
            guard (1...2).contains(ids.count), ids.allSatisfy(Self.isUSBID) else {
                return .failure(SelectorError("expected usb:VENDOR[:PRODUCT] with 4-digit hex ids, not 'usb:\(value)'"))
            }
            return .success(.usb(vendor: ids[0], product: ids.count == 2 ? ids[1] : nil))
        case "mac":
            let octets = value.split(separator: ":", omittingEmptySubsequences: false)
            guard octets.count == 6, octets.allSatisfy({ $0.count == 2 && $0.allSatisfy(\.isHexDigit) }) else {
                return .failure(SelectorError("expected mac:aa:bb:cc:dd:ee:ff, not 'mac:\(value)'"))
            }
            return .success(.mac(value.lowercased()))
        case "ssid": return glob(value).map(RuleSelector.ssid)
        case "dhcp":
            guard value.lowercased() == "android-metered" else {
                return .failure(SelectorError("the only DHCP hint is 'dhcp:android-metered', not 'dhcp:\(value)'"))
            }
            return .success(.androidMeteredLease)
        default:
            // Interface names may hold a colon (aliases); an unknown prefix is a name glob.
            return glob(Substring(text)).map(RuleSelector.name)
        }
    }

    private static func isUSBID(_ text: String) -> Bool { text.count == 4 && text.allSatisfy(\.isHexDigit) }

    /// Whether the interface these facts describe is selected. A selector on a fact the interface
    /// lacks (no sysfs driver, no USB ids, no lease) does not match.
    public func matches(_ facts: InterfaceFacts) -> Bool {
        switch self {
        case .name(let glob): glob.matches(facts.name)
        case .driver(let glob): facts.sysfs?.driver.map(glob.matches) ?? false
        case .usb(let vendor, let product):
            facts.sysfs?.usbVendorID == vendor && (product == nil || facts.sysfs?.usbProductID == product)
        case .mac(let address): facts.macAddress?.lowercased() == address
        case .androidMeteredLease: facts.dhcpHints?.androidMetered == true
        case .ssid(let glob): facts.wifi?.association?.ssid.map(glob.matches) ?? false
        }
    }

    public var description: String {
        switch self {
        case .name(let glob): glob.pattern
        case .driver(let glob): "driver:\(glob.pattern)"
        case .usb(let vendor, let product): product.map { "usb:\(vendor):\($0)" } ?? "usb:\(vendor)"
        case .mac(let address): "mac:\(address)"
        case .androidMeteredLease: "dhcp:android-metered"
        case .ssid(let glob): "ssid:\(glob.pattern)"
        }
    }

    /// The glob of a name selector.
    public var nameGlob: Glob? {
        if case .name(let glob) = self { return glob }
        return nil
    }
}

/// Why a selector could not be parsed.
public struct SelectorError: Error, Sendable, Hashable {
    /// What is wrong with the selector, for an ``OverrideRuleError``.
    public var reason: String
    init(_ reason: String) { self.reason = reason }
}
