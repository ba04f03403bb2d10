/// RFC 2863 operational state (`IFLA_OPERSTATE`, sysfs `operstate`).
public enum OperationalState: String, Sendable, Hashable, Codable {
    case unknown, notPresent = "notpresent", down, lowerLayerDown = "lowerlayerdown", testing, dormant, up

    /// The kernel's `IF_OPER_*` number.
    public init(kernelValue: UInt8) {
        switch kernelValue {
        case 1: self = .notPresent
        case 2: self = .down
        case 3: self = .lowerLayerDown
        case 4: self = .testing
        case 5: self = .dormant
        case 6: self = .up
        default: self = .unknown
        }
    }
}
