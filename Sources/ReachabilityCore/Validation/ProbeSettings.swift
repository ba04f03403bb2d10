/// Connectivity-validation settings as given by a configuration file or the command line,
/// before they become a ``ConnectivityValidation``: every value checked when it is read.
public struct ProbeSettings: Sendable, Hashable {
    /// `probe = URL` lines, in order.
    public var endpoints: [ProbeEndpoint] = []
    /// `probe-timeout = SECONDS`: one round's limit (0.1 to 60 s).
    public var timeout: Duration?
    /// `probe-recheck = SECONDS`: how long a `full` network goes unprobed (60 s to 1 day).
    public var recheck: Duration?
    /// `probe-ca-file = PATH`: extra trusted CAs for HTTPS probes.
    public var caFile: String?

    /// No settings: validation off.
    public init() {}

    /// The setting keys a configuration line may start with.
    public static let keys: Set<String> = ["probe", "probe-timeout", "probe-recheck", "probe-ca-file"]

    /// `key = value` when the line's key is a setting (not an interface pattern).
    static func setting(in line: String) -> (key: String, value: String)? {
        guard let equals = line.firstIndex(of: "=") else { return nil }
        let key = String(line[..<equals].trimmingBlanks()).lowercased()
        guard keys.contains(key) else { return nil }
        return (key, String(line[line.index(after: equals)...].trimmingBlanks()))
    }

    /// Applies one setting; returns why it is invalid, or nil.
    public mutating func apply(key: String, value: String) -> String? {
        switch key {
        case "probe":
            do throws(ProbeEndpointError) {
                endpoints.append(try ProbeEndpoint(parsing: value))
            } catch {
                return error.reason
            }
        case "probe-timeout":
            guard let seconds = Self.seconds(value, in: 0.1...60) else { return "probe-timeout takes seconds from 0.1 to 60" }
            timeout = seconds
        case "probe-recheck":
            guard let seconds = Self.seconds(value, in: 60...86_400) else { return "probe-recheck takes seconds from 60 to 86400" }
            recheck = seconds
        case "probe-ca-file":
            guard value.hasPrefix("/") else { return "probe-ca-file takes an absolute path" }
            caFile = value
        default:
            return "unknown setting '\(key)'"
        }
        return nil
    }

    /// These settings, then `other`'s where it sets one (command line over file); endpoints add up,
    /// `other`'s first.
    public func overridden(by other: ProbeSettings) -> ProbeSettings {
        var merged = self
        merged.endpoints = other.endpoints + endpoints
        merged.timeout = other.timeout ?? timeout
        merged.recheck = other.recheck ?? recheck
        merged.caFile = other.caFile ?? caFile
        return merged
    }

    /// The validation these settings describe; nil when no probe is given (validation off).
    public var validation: ConnectivityValidation? {
        guard !endpoints.isEmpty else { return nil }
        var validation = ConnectivityValidation(endpoints: endpoints, caFile: caFile)
        if let timeout { validation.timeout = timeout }
        if let recheck { validation.recheckInterval = recheck }
        return validation
    }

    /// Decimal seconds within `range`, as a duration; nil for anything else (`inf`, `nan`, `-1`).
    public static func seconds(_ text: String, in range: ClosedRange<Double>) -> Duration? {
        guard !text.isEmpty, text.utf8.count <= 16, text.allSatisfy({ $0.isASCIIDigit || $0 == "." }),
            let value = Double(text), value.isFinite, range.contains(value)
        else { return nil }
        return .milliseconds(Int64((value * 1000).rounded()))
    }
}
