/// One signal the classifier looked at, what it suggested, and whether it decided.
public struct Evidence: Sendable, Hashable, CustomStringConvertible {
    /// Where the signal comes from: `override`, `kind`, `ARPHRD`, `DEVTYPE`, `driver`, `name`, …
    public var signal: String
    public var value: String
    /// The type this signal points to, if any (some signals are only context).
    public var suggests: InterfaceType?
    /// Why the signal means what it suggests, briefly.
    public var note: String?
    /// This is the signal that decided the type.
    public var isDecisive: Bool

    public init(signal: String, value: String, suggests: InterfaceType? = nil, note: String? = nil, isDecisive: Bool = false) {
        self.signal = signal
        self.value = value
        self.suggests = suggests
        self.note = note
        self.isDecisive = isDecisive
    }

    /// `DEVTYPE=wlan -> wifi (decided)`, the form `reach interfaces --explain` prints.
    public var description: String {
        var text = "\(signal)=\(value)"
        if let suggests { text += " -> \(suggests)" }
        if let note { text += " (\(note))" }
        if isDecisive { text += " [decided]" }
        return text
    }
}

/// The classifier's answer for one interface.
public struct Classification: Sendable, Hashable {
    public var type: InterfaceType
    public var isExpensive: Bool
    /// `isExpensive` was set by a user rule rather than derived from the type.
    public var expensiveIsOverridden: Bool
    public var evidence: [Evidence] {
        didSet { evidenceText = evidence.map(\.description) }
    }
    /// The evidence as published, formatted once rather than on every evaluation.
    public private(set) var evidenceText: [String]

    public init(type: InterfaceType, isExpensive: Bool, expensiveIsOverridden: Bool = false, evidence: [Evidence]) {
        self.type = type
        self.isExpensive = isExpensive
        self.expensiveIsOverridden = expensiveIsOverridden
        self.evidence = evidence
        self.evidenceText = evidence.map(\.description)
    }

    /// The signal that decided the type.
    public var decidedBy: Evidence? { evidence.first(where: \.isDecisive) }
}
