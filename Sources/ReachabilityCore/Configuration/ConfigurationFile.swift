/// The `reach` configuration file: one override rule or setting per line.
///
/// ```
/// # Lines starting with '#' are comments; blank lines are ignored.
/// wlan*       = wifi
/// usb0        = cellular, expensive
/// wg-office   = tunnel, inexpensive
/// # Wi-Fi networks by SSID (a glob): beats what the beacon and DHCP suggest.
/// ssid:Home   = inexpensive
/// ssid:*iPhone* = expensive
/// # Connectivity validation (off unless a probe is given):
/// probe       = http://probe.example.net/generate_204
/// probe       = https://probe.example.net/generate_204
/// probe-timeout = 3
/// probe-recheck = 1800
/// # Data budgets (the daemon keeps them): NAME = SELECTOR limit=SIZE [warning=SIZE|none]
/// # [cycle=monthly:DAY|weekly:DAY|daily|none] [reserve=SIZE]
/// budget sim  = cellular limit=2GB warning=1.6GB cycle=monthly:14 reserve=100MB
/// ```
/// Each rule has the syntax of `--override` (``OverrideRule``). Rules are tried in order;
/// the first rule matching an interface that sets a type decides the type, and the first that
/// sets a cost decides the cost. The keys of ``ProbeSettings`` (`probe`, `probe-timeout`,
/// `probe-recheck`, `probe-ca-file`) are settings, not interface patterns.
public struct ConfigurationFile: Sendable, Hashable {
    /// The file's rules, in file order (the order in which they are tried).
    public var rules: [OverrideRule]
    /// The file's connectivity-validation settings (no probe: validation stays off).
    public var probeSettings: ProbeSettings
    /// The file's data budgets, with where each is (`FILE:LINE`), in file order.
    public var budgets: [ConfiguredBudget] = []

    /// A configuration made of already parsed rules and settings.
    public init(rules: [OverrideRule], probeSettings: ProbeSettings = ProbeSettings()) {
        self.rules = rules
        self.probeSettings = probeSettings
    }

    /// Every problem in a configuration file's text (empty when it is valid): for `reach config
    /// check`, which reports them all rather than the first.
    public static func problems(in text: String, name: String) -> [ConfigurationFileError] {
        parse(text, name: name).problems
    }

    /// Parses the text of a configuration file; `name` appears in errors and evidence. Throws
    /// the first invalid line.
    public init(parsing text: String, name: String) throws(ConfigurationFileError) {
        let parsed = Self.parse(text, name: name)
        if let first = parsed.problems.first { throw first }
        self.rules = parsed.rules
        self.probeSettings = parsed.settings
        self.budgets = parsed.budgets
    }

    /// One pass over every line: the valid rules and settings, and every invalid line.
    private static func parse(
        _ text: String, name: String
    ) -> (rules: [OverrideRule], settings: ProbeSettings, budgets: [ConfiguredBudget], problems: [ConfigurationFileError]) {
        var settings = ProbeSettings()
        var rules: [OverrideRule] = []
        var budgets: [ConfiguredBudget] = []
        var problems: [ConfigurationFileError] = []
        // Editors on Windows start UTF-8 files with a byte-order mark; it is not part of a rule.
        let body = text.hasPrefix("\u{FEFF}") ? text.dropFirst() : Substring(text)
        // `\r\n` is one Character in Swift: split on any newline, not on "\n".
        for (offset, rawLine) in body.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            var line = rawLine
            if let hash = line.firstIndex(of: "#") { line = line[..<hash] }
            let trimmed = String(line.trimmingBlanks())
            if trimmed.isEmpty { continue }
            if let budget = budgetLine(trimmed) {
                do throws(BudgetError) {
                    let parsed = try DataBudget(name: budget.name, configuration: budget.value)
                    if budgets.contains(where: { $0.budget.name == parsed.name }) {
                        throw BudgetError(field: "name", reason: "a budget '\(parsed.name)' is defined above")
                    }
                    budgets.append(ConfiguredBudget(budget: parsed, origin: "\(name):\(offset + 1)"))
                } catch {
                    problems.append(ConfigurationFileError(file: name, line: offset + 1, text: trimmed, reason: error.description, kind: "budget"))
                }
                continue
            }
            if let setting = ProbeSettings.setting(in: trimmed) {
                if let reason = settings.apply(key: setting.key, value: setting.value) {
                    problems.append(ConfigurationFileError(file: name, line: offset + 1, text: trimmed, reason: reason, kind: "setting"))
                }
                continue
            }
            do {
                rules.append(try OverrideRule(parsing: trimmed, origin: "\(name):\(offset + 1)"))
            } catch {
                problems.append(ConfigurationFileError(file: name, line: offset + 1, text: trimmed, reason: error.reason))
            }
        }
        return (rules, settings, budgets, problems)
    }

    /// `budget NAME = VALUE`: the name (checked by ``DataBudget``) and the value; nil for
    /// another kind of line.
    private static func budgetLine(_ line: String) -> (name: String, value: String)? {
        guard line.hasPrefix("budget "), let equals = line.firstIndex(of: "=") else { return nil }
        let name = line[line.index(line.startIndex, offsetBy: 7)..<equals].trimmingBlanks()
        return (String(name), String(line[line.index(after: equals)...].trimmingBlanks()))
    }
}

/// A configuration file that could not be parsed: file, line number, text and reason.
public struct ConfigurationFileError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file's name, as given to the parser (a path when the file was read from disk).
    public var file: String
    /// The 1-based line of the invalid rule; 0 when the whole file is at fault (unreadable, not UTF-8).
    public var line: Int
    /// The invalid rule, comment and surrounding blanks removed; empty when ``line`` is 0.
    public var text: String
    /// Why the line (or the file) was rejected.
    public var reason: String
    /// What the line was taken for: `rule` or `setting`.
    public var kind: String

    /// An error about `file`; a `line` of 0 reports a problem with the file as a whole.
    public init(file: String, line: Int, text: String, reason: String, kind: String = "rule") {
        self.file = file
        self.line = line
        self.text = text
        self.reason = reason
        self.kind = kind
    }

    public var description: String {
        line == 0 ? "\(file): \(reason)" : "\(file):\(line): invalid \(kind) '\(text)': \(reason)"
    }
}
