import ReachabilityCore
import Testing

/// One glob match: pattern, interface name, whether it matches.
struct GlobCase: Sendable, CustomTestStringConvertible {
    var pattern: String
    var name: String
    var matches: Bool
    var testDescription: String { "'\(pattern)' \(matches ? "matches" : "does not match") '\(name)'" }

    init(_ pattern: String, _ name: String, _ matches: Bool) {
        self.pattern = pattern
        self.name = name
        self.matches = matches
    }
}

private let globCases: [GlobCase] = [
    // Literals.
    GlobCase("wlan0", "wlan0", true),
    GlobCase("wlan0", "wlan1", false),
    GlobCase("wlan0", "wlan01", false),
    GlobCase("wlan0", "wlan", false),
    GlobCase("Wlan0", "wlan0", false),  // case-sensitive, like interface names
    GlobCase("", "", true),
    GlobCase("", "a", false),
    // `*`.
    GlobCase("*", "", true),
    GlobCase("*", "anything", true),
    GlobCase("wlan*", "wlan", true),
    GlobCase("wlan*", "wlan0", true),
    GlobCase("wlan*", "xwlan0", false),
    GlobCase("*.100", "wlp0s20f3.100", true),
    GlobCase("*.100", "wlp0s20f3.1000", false),
    GlobCase("en*s*", "enp0s31f6", true),
    GlobCase("*a*b*", "xaybz", true),
    GlobCase("*a*b", "xaybz", false),
    GlobCase("a*b*c", "abc", true),
    GlobCase("a*b*c", "aXbYbZc", true),
    GlobCase("a*b*c", "acb", false),
    GlobCase("a**b", "ab", true),
    GlobCase("*wan*", "wwan0", true),
    GlobCase("wg-*", "wg-office", true),
    // `?`.
    GlobCase("?", "a", true),
    GlobCase("?", "", false),
    GlobCase("?", "ab", false),
    GlobCase("wl?n0", "wlan0", true),
    GlobCase("eth?", "eth10", false),
    GlobCase("*?", "", false),
    GlobCase("*?", "x", true),
    // Bracket expressions.
    GlobCase("en[ox]*", "enx00e04c680001", true),
    GlobCase("en[ox]*", "eno1", true),
    GlobCase("en[ox]*", "enp0s3", false),
    GlobCase("eth[0-3]", "eth0", true),
    GlobCase("eth[0-3]", "eth3", true),
    GlobCase("eth[0-3]", "eth4", false),
    GlobCase("eth[!0-3]", "eth4", true),
    GlobCase("eth[!0-3]", "eth2", false),
    GlobCase("eth[^0]", "eth1", true),
    GlobCase("eth[^0]", "eth0", false),
    GlobCase("wwan[0-9a-f]", "wwanb", true),
    GlobCase("wwan[0-9a-f]", "wwang", false),
    GlobCase("[]]x", "]x", true),  // `]` first in the set is a literal
    GlobCase("[!]]", "a", true),
    GlobCase("[!]]", "]", false),
    GlobCase("[a-]", "-", true),  // a trailing `-` is a literal
    GlobCase("*[0-9]", "eth0", true),
    GlobCase("*[0-9]", "eth", false),
    GlobCase("[ew]*[0-9]", "wlan0", true),
    GlobCase("a]", "a]", true),  // an unopened `]` is a literal
]

@Suite("Glob")
struct GlobTests {
    @Test("matching", arguments: globCases)
    func matching(_ row: GlobCase) throws {
        let glob = try #require(Glob(row.pattern))
        #expect(glob.matches(row.name) == row.matches)
    }

    @Test("an unclosed bracket expression is rejected", arguments: ["[abc", "wlan[", "[!", "[]", "eth[0-", "a*[b"])
    func unclosedBracket(_ pattern: String) {
        #expect(Glob(pattern) == nil)
    }

    @Test("the pattern is kept as written and printed as itself")
    func description() throws {
        let glob = try #require(Glob("en[ox]*"))
        #expect(glob.pattern == "en[ox]*")
        #expect(glob.description == "en[ox]*")
        #expect(glob == Glob("en[ox]*"))
        #expect(glob != Glob("en[ox]?"))
    }
}
