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
        var problems: [ConfigurationFileError] = []
        var remaining = text
        var offset = 0
        while true {
            do {
                _ = try ConfigurationFile(parsing: remaining, name: name)
                return problems
            } catch {
                var problem = error
                problem.line += offset
                problems.append(problem)
                // Continue after the bad line.
                let lines = remaining.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
                offset += error.line
                remaining = lines.dropFirst(error.line).joined(separator: "\n")
            }
        }
    }

    /// Parses the text of a configuration file; `name` appears in errors and evidence.
    public init(parsing text: String, name: String) throws(ConfigurationFileError) {
        var rules: [OverrideRule] = []
        var lineNumber = 0
        // `\r\n` is one Character in Swift: split on any newline, not on "\n".
        for rawLine in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline) {
            lineNumber += 1
            var line = Substring(rawLine)
            if let hash = line.firstIndex(of: "#") { line = line[..<hash] }
            let trimmed = line.trimmingSpaces
            if trimmed.isEmpty { continue }
            do {
                rules.append(try OverrideRule(parsing: trimmed, origin: "\(name):\(lineNumber)"))
            } catch {
                throw ConfigurationFileError(file: name, line: lineNumber, text: trimmed, reason: error.reason)
            }
        }
        self.rules = rules
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
