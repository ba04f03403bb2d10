/// One signal the classifier looked at, what it suggested, and whether it decided.
///
/// Its text form (``description``) is what `reach interfaces --explain` prints and what the JSON
/// contract carries; it is kept up to date on every change, so publishing a path formats nothing.
public struct Evidence: Sendable, Hashable, CustomStringConvertible {
    /// Where the signal comes from: `override`, `kind`, `ARPHRD`, `DEVTYPE`, `driver`, `name`, …
    public var signal: String { didSet { refreshText() } }
    /// What that source said (`wlan` in `DEVTYPE=wlan`, a driver's name, a kind).
    public var value: String { didSet { refreshText() } }
    /// The type this signal points to, if any (some signals are only context).
    public var suggests: InterfaceType? { didSet { refreshText() } }
    /// Why the signal means what it suggests, briefly.
    public var note: String? { didSet { refreshText() } }
    /// This is the signal that decided the type.
    public var isDecisive: Bool { didSet { refreshText() } }
    /// `DEVTYPE=wlan -> wifi [decided]`.
    public private(set) var description: String

    /// Evidence with its text form computed from the fields.
    public init(signal: String, value: String, suggests: InterfaceType? = nil, note: String? = nil, isDecisive: Bool = false) {
        self.signal = signal
        self.value = value
        self.suggests = suggests
        self.note = note
        self.isDecisive = isDecisive
        description = Self.text(signal: signal, value: value, suggests: suggests, note: note, isDecisive: isDecisive)
    }

    /// Evidence read back from its text form (a JSON consumer): the text is kept exactly, the
    /// fields are recovered from `signal=value[ -> type][ (note)][ [decided]]` (a value that
    /// itself ends in parentheses and has no note is read as having one: the text is the truth).
    public init(text: String) {
        var rest = Substring(text)
        let decided = rest.hasSuffix(" [decided]")
        if decided { rest = rest.dropLast(" [decided]".count) }
        let equals = rest.firstIndex(of: "=") ?? rest.endIndex
        var value = rest[equals...].dropFirst()
        var suggests: InterfaceType?
        var note: String?
        if let arrow = value.firstRange(of: " -> ") {
            let after = value[arrow.upperBound...]
            let typeName = after.prefix { $0 != " " }
            suggests = InterfaceType(rawValue: String(typeName))
            let tail = after.dropFirst(typeName.count)
            if tail.hasPrefix(" (") && tail.hasSuffix(")") { note = String(tail.dropFirst(2).dropLast()) }
            value = value[..<arrow.lowerBound]
        } else if value.hasSuffix(")"), let open = value.ranges(of: " (").last {
            note = String(value[open.upperBound...].dropLast())
            value = value[..<open.lowerBound]
        }
        self.signal = String(rest[..<equals])
        self.value = String(value)
        self.suggests = suggests
        self.note = note
        self.isDecisive = decided
        description = text
    }

    private mutating func refreshText() {
        description = Self.text(signal: signal, value: value, suggests: suggests, note: note, isDecisive: isDecisive)
    }

    private static func text(signal: String, value: String, suggests: InterfaceType?, note: String?, isDecisive: Bool) -> String {
        var text = "\(signal)=\(value)"
        if let suggests { text += " -> \(suggests)" }
        if let note { text += " (\(note))" }
        if isDecisive { text += " [decided]" }
        return text
    }
}

/// The classifier's answer for one interface.
public struct Classification: Sendable, Hashable {
    /// The interface's type: the decisive signal's suggestion, or a user rule's.
    public var type: InterfaceType
    /// Traffic over the interface is paid for by volume (by type, hardware, DHCP hint or user rule).
    public var isExpensive: Bool
    /// `isExpensive` was set by a user rule rather than derived from the type.
    public var expensiveIsOverridden: Bool
    /// Every signal considered, in order; the one that decided the type is marked decisive.
    public var evidence: [Evidence]

    /// A classification given field by field (``Classifier`` computes them).
    public init(type: InterfaceType, isExpensive: Bool, expensiveIsOverridden: Bool = false, evidence: [Evidence]) {
        self.type = type
        self.isExpensive = isExpensive
        self.expensiveIsOverridden = expensiveIsOverridden
        self.evidence = evidence
    }

    /// The signal that decided the type.
    public var decidedBy: Evidence? { evidence.first(where: \.isDecisive) }
}
