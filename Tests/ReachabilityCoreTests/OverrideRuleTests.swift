import ReachabilityCore
import Testing

/// A rule that parses: its text and what it sets.
struct ValidRuleCase: Sendable, CustomTestStringConvertible {
    var text: String
    var pattern: String
    var type: InterfaceType?
    var isExpensive: Bool?
    /// `description`, the canonical form.
    var canonical: String
    var testDescription: String { text }
}

/// A rule that does not parse, and the reason it gives.
struct InvalidRuleCase: Sendable, CustomTestStringConvertible {
    var text: String
    var reason: String
    var testDescription: String { text }
}

private let knownTypes = "wifi, cellular, wired, loopback, tunnel, virtual, bluetooth, other, expensive, inexpensive"

private let validRules: [ValidRuleCase] = [
    ValidRuleCase(text: "wlan*=wifi", pattern: "wlan*", type: .wifi, isExpensive: nil, canonical: "wlan*=wifi"),
    ValidRuleCase(
        text: "usb0=cellular,inexpensive", pattern: "usb0", type: .cellular, isExpensive: false,
        canonical: "usb0=cellular,inexpensive"),
    ValidRuleCase(text: "enx*=expensive", pattern: "enx*", type: nil, isExpensive: true, canonical: "enx*=expensive"),
    ValidRuleCase(text: "enx*=inexpensive", pattern: "enx*", type: nil, isExpensive: false, canonical: "enx*=inexpensive"),
    // Spaces and tabs around every part.
    ValidRuleCase(
        text: " wg-office = tunnel , inexpensive ", pattern: "wg-office", type: .tunnel, isExpensive: false,
        canonical: "wg-office=tunnel,inexpensive"),
    ValidRuleCase(text: "\teth0\t=\twired\t", pattern: "eth0", type: .wired, isExpensive: nil, canonical: "eth0=wired"),
    // Case-insensitive values; the cost may come first; `metered` / `unmetered` are synonyms.
    ValidRuleCase(text: "eth0=WIRED", pattern: "eth0", type: .wired, isExpensive: nil, canonical: "eth0=wired"),
    ValidRuleCase(
        text: "eth0=Inexpensive,Wired", pattern: "eth0", type: .wired, isExpensive: false,
        canonical: "eth0=wired,inexpensive"),
    ValidRuleCase(text: "ppp0=metered", pattern: "ppp0", type: nil, isExpensive: true, canonical: "ppp0=expensive"),
    ValidRuleCase(text: "ppp0=unmetered", pattern: "ppp0", type: nil, isExpensive: false, canonical: "ppp0=inexpensive"),
    ValidRuleCase(
        text: "eth[0-3]=bluetooth,expensive", pattern: "eth[0-3]", type: .bluetooth, isExpensive: true,
        canonical: "eth[0-3]=bluetooth,expensive"),
    ValidRuleCase(text: "*=other", pattern: "*", type: .other, isExpensive: nil, canonical: "*=other"),
    ValidRuleCase(text: "lo=loopback", pattern: "lo", type: .loopback, isExpensive: nil, canonical: "lo=loopback"),
    ValidRuleCase(text: "docker*=virtual", pattern: "docker*", type: .virtual, isExpensive: nil, canonical: "docker*=virtual"),
]

private let invalidRules: [InvalidRuleCase] = [
    InvalidRuleCase(text: "wlan0", reason: "expected PATTERN=TYPE[,expensive|,inexpensive]"),
    InvalidRuleCase(text: "", reason: "expected PATTERN=TYPE[,expensive|,inexpensive]"),
    InvalidRuleCase(text: "=wifi", reason: "empty interface pattern"),
    InvalidRuleCase(text: "  \t=wifi", reason: "empty interface pattern"),
    InvalidRuleCase(text: "wlan[0=wifi", reason: "unclosed '[' in pattern 'wlan[0'"),
    InvalidRuleCase(text: "wlan0=", reason: "expected a type and/or expensive|inexpensive after '='"),
    InvalidRuleCase(text: "wlan0=   ", reason: "expected a type and/or expensive|inexpensive after '='"),
    InvalidRuleCase(text: "wlan0= , ", reason: "expected a type and/or expensive|inexpensive after '='"),
    InvalidRuleCase(text: "wlan0=wifi, ,expensive", reason: "expected a type and/or expensive|inexpensive after '='"),
    InvalidRuleCase(text: "wlan0=wifi,cellular", reason: "type given twice"),
    InvalidRuleCase(text: "wlan0=wifi,wifi", reason: "type given twice"),
    InvalidRuleCase(text: "wlan0=expensive,inexpensive", reason: "cost given twice"),
    InvalidRuleCase(text: "wlan0=metered,expensive", reason: "cost given twice"),
    InvalidRuleCase(text: "wlan0=fast", reason: "unknown type 'fast' (known: \(knownTypes))"),
    InvalidRuleCase(text: "wlan0=wifi,cheap", reason: "unknown type 'cheap' (known: \(knownTypes))"),
    InvalidRuleCase(text: "wlan0=wi fi", reason: "unknown type 'wi fi' (known: \(knownTypes))"),
    // Only the first '=' separates: the rest is the value.
    InvalidRuleCase(text: "a=b=c", reason: "unknown type 'b=c' (known: \(knownTypes))"),
]

@Suite("OverrideRule")
struct OverrideRuleTests {
    @Test("valid rules", arguments: validRules)
    func parses(_ row: ValidRuleCase) throws {
        let rule = try OverrideRule(parsing: row.text)
        #expect(rule.pattern?.pattern == row.pattern)
        #expect(rule.type == row.type)
        #expect(rule.isExpensive == row.isExpensive)
        #expect(rule.origin == "--override")
        #expect(rule.description == row.canonical)
        // The canonical form parses back to the same rule.
        #expect(try OverrideRule(parsing: rule.description) == rule)
    }

    @Test("invalid rules, with the reason and the offending text", arguments: invalidRules)
    func rejects(_ row: InvalidRuleCase) {
        let error = #expect(throws: OverrideRuleError.self) { try OverrideRule(parsing: row.text) }
        #expect(error?.reason == row.reason)
        #expect(error?.text == row.text)
        #expect(error?.description == "invalid override '\(row.text)': \(row.reason)")
    }

    @Test("the origin is kept for evidence")
    func origin() throws {
        let rule = try OverrideRule(parsing: "wwan*=inexpensive", origin: "/etc/reach.conf:4")
        #expect(rule.origin == "/etc/reach.conf:4")
        #expect(rule.pattern?.matches("wwan0") == true)
        #expect(rule.pattern?.matches("wlan0") == false)
    }

    @Test("a trailing or doubled comma leaves an empty item, rejected like ' , '")
    func emptyItemsBetweenCommas() {
        for text in ["wlan0=wifi,", "wlan0=wifi,,expensive", "wlan0=,wifi"] {
            #expect(throws: OverrideRuleError.self, "\(text)") { try OverrideRule(parsing: text) }
        }
    }
}
