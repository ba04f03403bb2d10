/// A user rule that sets an interface's type, its cost, or both, beating every kernel signal.
///
/// Written `SELECTOR=TYPE[,expensive|,inexpensive]` on the command line (`--override`) and in
/// configuration files. SELECTOR is a shell glob over interface names or a prefixed selector
/// (see ``RuleSelector``): `wlan*=wifi`, `usb0=cellular,inexpensive`, `driver:cdc_ether=cellular`,
/// `usb:12d1:14db=cellular`, `mac:02:00:00:00:00:01=expensive`, `dhcp:android-metered=inexpensive`.
public struct OverrideRule: Sendable, Hashable, CustomStringConvertible {
    /// Which interfaces the rule applies to (the text before the `=`).
    public var selector: RuleSelector
    /// The type the rule sets; `nil` when it sets only the cost.
    public var type: InterfaceType?
    /// The cost the rule sets (`expensive` or `inexpensive`); `nil` when it sets only the type.
    public var isExpensive: Bool?
    /// Where the rule was written, for evidence: `--override` or `FILE:LINE`.
    public var origin: String

    /// A rule setting `type`, `isExpensive`, or both, on the interfaces `selector` matches.
    public init(selector: RuleSelector, type: InterfaceType?, isExpensive: Bool?, origin: String) {
        self.selector = selector
        self.type = type
        self.isExpensive = isExpensive
        self.origin = origin
    }

    /// A rule on interface names.
    public init(pattern: Glob, type: InterfaceType?, isExpensive: Bool?, origin: String) {
        self.init(selector: .name(pattern), type: type, isExpensive: isExpensive, origin: origin)
    }

    /// The name glob of a rule on interface names.
    public var pattern: Glob? { selector.nameGlob }

    /// Whether the rule applies to the interface these facts describe (see ``RuleSelector/matches(_:)``).
    public func matches(_ facts: InterfaceFacts) -> Bool { selector.matches(facts) }

    /// Parses `SELECTOR=TYPE[,expensive|,inexpensive]`.
    public init(parsing text: String, origin: String = "--override") throws(OverrideRuleError) {
        guard let equals = text.firstIndex(of: "=") else {
            throw OverrideRuleError(text: text, reason: "expected PATTERN=TYPE[,expensive|,inexpensive]")
        }
        let patternText = String(text[..<equals].trimmingBlanks())
        let valueText = String(text[text.index(after: equals)...].trimmingBlanks())
        guard !patternText.isEmpty else { throw OverrideRuleError(text: text, reason: "empty interface pattern") }
        let selector: RuleSelector
        switch RuleSelector.parse(patternText) {
        case .success(let parsed): selector = parsed
        case .failure(let error): throw OverrideRuleError(text: text, reason: error.reason)
        }
        var type: InterfaceType?
        var expensive: Bool?
        let tokens = valueText.split(separator: ",", omittingEmptySubsequences: false).map { String($0.trimmingBlanks()) }
        guard !tokens.isEmpty, !tokens.contains(where: \.isEmpty) else {
            throw OverrideRuleError(text: text, reason: "expected a type and/or expensive|inexpensive after '='")
        }
        for token in tokens {
            switch token.lowercased() {
            case "expensive", "metered":
                guard expensive == nil else { throw OverrideRuleError(text: text, reason: "cost given twice") }
                expensive = true
            case "inexpensive", "unmetered":
                guard expensive == nil else { throw OverrideRuleError(text: text, reason: "cost given twice") }
                expensive = false
            default:
                guard let parsed = InterfaceType(rawValue: token.lowercased()) else {
                    let known = InterfaceType.allCases.map(\.rawValue).joined(separator: ", ")
                    throw OverrideRuleError(text: text, reason: "unknown type '\(token)' (known: \(known), expensive, inexpensive)")
                }
                guard type == nil else { throw OverrideRuleError(text: text, reason: "type given twice") }
                type = parsed
            }
        }
        self.init(selector: selector, type: type, isExpensive: expensive, origin: origin)
    }

    public var description: String {
        var parts: [String] = []
        if let type { parts.append(type.rawValue) }
        if let isExpensive { parts.append(isExpensive ? "expensive" : "inexpensive") }
        return "\(selector)=\(parts.joined(separator: ","))"
    }
}

/// A rule that could not be parsed, with the offending text.
public struct OverrideRuleError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The rule as written.
    public var text: String
    /// What is wrong with it (`empty interface pattern`, `unknown type 'wlan'`, …).
    public var reason: String

    /// An error about the rule `text`.
    public init(text: String, reason: String) {
        self.text = text
        self.reason = reason
    }

    public var description: String { "invalid override '\(text)': \(reason)" }
}
