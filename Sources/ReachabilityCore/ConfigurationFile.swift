/// The `reach` configuration file: one override rule per line.
///
/// ```
/// # Lines starting with '#' are comments; blank lines are ignored.
/// wlan*       = wifi
/// usb0        = cellular, expensive
/// wg-office   = tunnel, inexpensive
/// ```
/// Each rule has the syntax of `--override` (``OverrideRule``). Rules are tried in order;
/// the first rule matching an interface that sets a type decides the type, and the first that
/// sets a cost decides the cost.
public struct ConfigurationFile: Sendable, Hashable {
    public var rules: [OverrideRule]

    public init(rules: [OverrideRule]) { self.rules = rules }

    /// Every problem in a configuration file's text (empty when it is valid): for `reach config
    /// check`, which reports them all rather than the first.
    public static func problems(in text: String, name: String) -> [ConfigurationFileError] {
        // Each line on its own: parsing the rest of the file again after every bad line took
        // time quadratic in the number of bad lines (seconds for a few thousand).
        ruleLines(text).compactMap { number, line -> ConfigurationFileError? in
            do throws(OverrideRuleError) {
                _ = try OverrideRule(parsing: line, origin: "\(name):\(number)")
                return nil
            } catch {
                return ConfigurationFileError(file: name, line: number, text: line, reason: error.reason)
            }
        }
    }

    /// Parses the text of a configuration file; `name` appears in errors and evidence.
    public init(parsing text: String, name: String) throws(ConfigurationFileError) {
        var rules: [OverrideRule] = []
        for (number, line) in Self.ruleLines(text) {
            do {
                rules.append(try OverrideRule(parsing: line, origin: "\(name):\(number)"))
            } catch {
                throw ConfigurationFileError(file: name, line: number, text: line, reason: error.reason)
            }
        }
        self.rules = rules
    }

    /// The lines that hold a rule, numbered from 1, without comments and surrounding blanks.
    private static func ruleLines(_ text: String) -> [(number: Int, text: String)] {
        var lines: [(number: Int, text: String)] = []
        // `\r\n` is one Character in Swift: split on any newline, not on "\n".
        for (index, rawLine) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            var line = Substring(rawLine)
            if let hash = line.firstIndex(of: "#") { line = line[..<hash] }
            let trimmed = line.trimmingSpaces
            if !trimmed.isEmpty { lines.append((index + 1, trimmed)) }
        }
        return lines
    }
}

/// A configuration file that could not be parsed: file, line number, text and reason.
public struct ConfigurationFileError: Error, Sendable, Hashable, CustomStringConvertible {
    public var file: String
    public var line: Int
    public var text: String
    public var reason: String

    public init(file: String, line: Int, text: String, reason: String) {
        self.file = file
        self.line = line
        self.text = text
        self.reason = reason
    }

    public var description: String {
        line == 0 ? "\(file): \(reason)" : "\(file):\(line): invalid rule '\(text)': \(reason)"
    }
}
