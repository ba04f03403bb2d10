import ReachabilityCore
import Testing

/// A file that parses: its text and the rules it yields, as `description (origin)`.
struct ValidConfigurationCase: Sendable, CustomTestStringConvertible {
    var label: String
    var text: String
    var rules: [String]
    var testDescription: String { label }
}

/// A file that does not parse: where, what text, why.
struct InvalidConfigurationCase: Sendable, CustomTestStringConvertible {
    var label: String
    var text: String
    var line: Int
    var offending: String
    var reason: String
    var testDescription: String { label }
}

private let validConfigurations: [ValidConfigurationCase] = [
    ValidConfigurationCase(label: "empty file", text: "", rules: []),
    ValidConfigurationCase(label: "only comments and blank lines", text: "# reach\n\n   \n\t# indented comment\n", rules: []),
    ValidConfigurationCase(
        label: "the documented example",
        text: """
            # Lines starting with '#' are comments; blank lines are ignored.
            wlan*       = wifi
            usb0        = cellular, expensive
            wg-office   = tunnel, inexpensive
            """,
        rules: [
            "wlan*=wifi (reach.conf:2)", "usb0=cellular,expensive (reach.conf:3)",
            "wg-office=tunnel,inexpensive (reach.conf:4)",
        ]),
    ValidConfigurationCase(
        label: "line numbers count comments and blank lines",
        text: "\n# one\n\nenx*=expensive\n\n\n# two\neth1 = wifi\n",
        rules: ["enx*=expensive (reach.conf:4)", "eth1=wifi (reach.conf:8)"]),
    ValidConfigurationCase(
        label: "comments after a rule",
        text: "wwan* = inexpensive   # flat-rate SIM\nppp0=cellular#no space\n",
        rules: ["wwan*=inexpensive (reach.conf:1)", "ppp0=cellular (reach.conf:2)"]),
    ValidConfigurationCase(
        label: "no newline at the end",
        text: "a=wifi\nb=wired",
        rules: ["a=wifi (reach.conf:1)", "b=wired (reach.conf:2)"]),
]

private let invalidConfigurations: [InvalidConfigurationCase] = [
    InvalidConfigurationCase(
        label: "no '=' on line 3", text: "wlan*=wifi\n\nbogus\n", line: 3, offending: "bogus",
        reason: "expected PATTERN=TYPE[,expensive|,inexpensive]"),
    InvalidConfigurationCase(
        label: "unknown type after comments, trimmed and without its comment",
        text: "# c\nwlan0=wifi # ok\n  eth0 = fast  # bad\n", line: 3, offending: "eth0 = fast",
        reason: "unknown type 'fast' (known: wifi, cellular, wired, loopback, tunnel, virtual, bluetooth, other, expensive, inexpensive)"),
    InvalidConfigurationCase(
        label: "first line", text: "=wifi\nwlan0=wifi\n", line: 1, offending: "=wifi", reason: "empty interface pattern"),
    InvalidConfigurationCase(
        label: "unclosed bracket", text: "eth0=wired\nen[ox*=wired\n", line: 2, offending: "en[ox*=wired",
        reason: "unclosed '[' in pattern 'en[ox*'"),
    InvalidConfigurationCase(
        label: "empty value", text: "a=wifi\nb=wired\nc =\n", line: 3, offending: "c =",
        reason: "expected a type and/or expensive|inexpensive after '='"),
    InvalidConfigurationCase(
        label: "type twice", text: "\n\n\n\nwlan0 = wifi, cellular\n", line: 5, offending: "wlan0 = wifi, cellular",
        reason: "type given twice"),
    InvalidConfigurationCase(
        label: "cost twice", text: "wlan0 = expensive, unmetered\n", line: 1, offending: "wlan0 = expensive, unmetered",
        reason: "cost given twice"),
    // '#' always starts a comment, even inside what was meant as a pattern.
    InvalidConfigurationCase(
        label: "'#' inside a pattern", text: "wlan#1 = wifi\n", line: 1, offending: "wlan",
        reason: "expected PATTERN=TYPE[,expensive|,inexpensive]"),
]

/// A file and every problem `reach config check` reports in it, as `LINE: TEXT`.
struct ProblemsCase: Sendable, CustomTestStringConvertible {
    var label: String
    var text: String
    var problems: [String]
    var testDescription: String { label }
}

private let problemsCases: [ProblemsCase] = [
    ProblemsCase(label: "a valid file has none", text: "wlan*=wifi\n# c\n\neth0 = wired\n", problems: []),
    ProblemsCase(
        label: "every bad line, numbered in the whole file",
        text: "wlan*=wifi\n\nbogus\neth0 = fast  # bad\nok=wired\n=wifi\nen[ox*=wired",
        problems: ["3: bogus", "4: eth0 = fast", "6: =wifi", "7: en[ox*=wired"]),
    ProblemsCase(label: "CRLF", text: "bad\r\nok=wifi\r\n\r\nworse\r\n", problems: ["1: bad", "4: worse"]),
    // Each bad line used to make the rest of the file be parsed again: time quadratic in the
    // number of bad lines (12 s for these 4 KB in the fuzz build, with AddressSanitizer).
    ProblemsCase(
        label: "2,048 bad lines", text: String(repeating: "=\n", count: 2048), problems: (1...2048).map { "\($0): =" }),
]

@Suite("ConfigurationFile")
struct ConfigurationFileTests {
    @Test("valid files", arguments: validConfigurations)
    func parses(_ row: ValidConfigurationCase) throws {
        let file = try ConfigurationFile(parsing: row.text, name: "reach.conf")
        #expect(file.rules.map { "\($0) (\($0.origin))" } == row.rules)
    }

    @Test("invalid files name the file, the line, the text and the reason", arguments: invalidConfigurations)
    func rejects(_ row: InvalidConfigurationCase) {
        let error = #expect(throws: ConfigurationFileError.self) {
            try ConfigurationFile(parsing: row.text, name: "/etc/reach.conf")
        }
        #expect(error?.file == "/etc/reach.conf")
        #expect(error?.line == row.line)
        #expect(error?.text == row.offending)
        #expect(error?.reason == row.reason)
        #expect(error?.description == "/etc/reach.conf:\(row.line): invalid rule '\(row.offending)': \(row.reason)")
    }

    @Test("problems lists every bad line, with its number in the whole file", arguments: problemsCases)
    func problems(_ row: ProblemsCase) {
        let problems = ConfigurationFile.problems(in: row.text, name: "reach.conf")
        #expect(problems.map { "\($0.line): \($0.text)" } == row.problems)
        #expect(problems.allSatisfy { $0.file == "reach.conf" && !$0.reason.isEmpty })
    }

    @Test("rules keep their order and their values")
    func rulesInOrder() throws {
        let file = try ConfigurationFile(parsing: "eth1 = cellular\neth* = inexpensive\n*=wired,expensive\n", name: "c")
        #expect(file.rules.count == 3)
        #expect(file.rules.map(\.type) == [.cellular, nil, .wired])
        #expect(file.rules.map(\.isExpensive) == [nil, false, true])
        #expect(file.rules.map(\.origin) == ["c:1", "c:2", "c:3"])
        #expect(file == ConfigurationFile(rules: file.rules))
    }

    @Test("a trailing carriage return is not part of the rule")
    func trailingCarriageReturnOnLastLine() throws {
        let file = try ConfigurationFile(parsing: "wlan0 = wifi\r", name: "c")
        #expect(file.rules.map(\.description) == ["wlan0=wifi"])
    }

    @Test("CRLF files are read line by line")
    func crlfLineEndings() throws {
        // In Swift "\r\n" is one Character: a file split on "\n" alone is one line.
        let file = try ConfigurationFile(parsing: "# windows\r\nwlan0 = wifi\r\n\r\neth0=wired, expensive\r\n", name: "c")
        #expect(file.rules.map { "\($0) (\($0.origin))" } == ["wlan0=wifi (c:2)", "eth0=wired,expensive (c:4)"])

        let error = #expect(throws: ConfigurationFileError.self) { try ConfigurationFile(parsing: "ok=wifi\r\nbad\r\n", name: "c") }
        #expect(error?.line == 2)
        #expect(error?.text == "bad")
    }

    @Test("an error with no line (an unreadable file) prints without one")
    func errorWithoutLine() {
        let error = ConfigurationFileError(file: "/etc/reach.conf", line: 0, text: "", reason: "No such file or directory")
        #expect(error.description == "/etc/reach.conf: No such file or directory")
    }
}
