/// A data budget: how many bytes the interfaces a selector matches may move per cycle
/// ("no more than 2 GB a month on the modem"), when to warn, and a reserve that only
/// user-initiated transfers may use. Android's `NetworkPolicy` (cycle, warning, limit) with
/// Windows' per-connection data limit.
public struct DataBudget: Sendable, Hashable {
    /// 1-64 characters of `[A-Za-z0-9._-]`, not starting with a dot.
    public var name: String
    /// The interfaces whose traffic counts.
    public var selector: BudgetSelector
    /// Bytes per cycle (received and sent together).
    public var limitBytes: Int64
    /// The level at which the budget warns; nil: never.
    public var warningBytes: Int64?
    /// When the count starts over.
    public var cycle: BudgetCycle
    /// The last bytes of the limit, kept for user-initiated transfers: background ones wait once
    /// what is left is below it.
    public var reserveBytes: Int64

    /// The largest size accepted: 2^53 - 1, exact in every JSON reader.
    public static let maxBytes: Int64 = 9_007_199_254_740_991

    /// A budget, checked: a valid name, a limit of at least one byte, a warning (nil: none) at
    /// most the limit, a reserve below the limit.
    public init(
        name: String, selector: BudgetSelector, limitBytes: Int64, warningBytes: Int64?, cycle: BudgetCycle = .monthly,
        reserveBytes: Int64 = 0
    ) throws(BudgetError) {
        guard Self.isValidName(name) else {
            throw BudgetError(field: "name", reason: "'\(name.prefix(80))' is not 1-64 characters of A-Z a-z 0-9 . _ - (not starting with '.')")
        }
        guard (1...Self.maxBytes).contains(limitBytes) else {
            throw BudgetError(field: "limit", reason: "\(limitBytes) is not between 1 byte and \(Self.maxBytes) bytes")
        }
        let warning = warningBytes
        if let warning, !(0...limitBytes).contains(warning) {
            throw BudgetError(field: "warning", reason: "\(warning) bytes is not between 0 and the limit (\(limitBytes) bytes)")
        }
        guard (0..<limitBytes).contains(reserveBytes) else {
            throw BudgetError(field: "reserve", reason: "\(reserveBytes) bytes is not at least 0 and below the limit (\(limitBytes) bytes)")
        }
        self.name = name
        self.selector = selector
        self.limitBytes = limitBytes
        self.warningBytes = warning
        self.cycle = cycle
        self.reserveBytes = reserveBytes
    }

    /// The warning level when none is given: 80 % of the limit, as Android's data warning
    /// suggests, rounded down.
    public static func defaultWarning(for limitBytes: Int64) -> Int64 {
        limitBytes / 5 * 4 + limitBytes % 5 * 4 / 5
    }

    /// Whether `name` may name a budget: it appears in URLs, metric labels and file names.
    public static func isValidName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard (1...64).contains(bytes.count), bytes[0] != UInt8(ascii: ".") else { return false }
        return bytes.allSatisfy { byte in
            (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
        }
    }

    /// A size as `--limit` and the configuration file take it (`2GB`, `500MiB`, `1048576`), in range.
    public static func bytes(_ text: String, field: String) throws(BudgetError) -> Int64 {
        guard let bytes = ByteCount.parse(text), bytes <= maxBytes else {
            throw BudgetError(field: field, reason: "'\(text.prefix(40))' is not a size up to 8 PiB (2GB, 500MiB, 1048576)")
        }
        return bytes
    }

    /// A budget from a configuration line's value, `SELECTOR limit=SIZE [warning=SIZE|none]
    /// [cycle=CYCLE] [reserve=SIZE]` (`budget NAME = …`).
    public init(name: String, configuration text: String) throws(BudgetError) {
        let words = text.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        guard let first = words.first else { throw BudgetError(field: "for", reason: "missing: budget NAME = SELECTOR limit=SIZE") }
        let selector = try BudgetSelector(parsing: first)
        var settings: [String: String] = [:]
        for word in words.dropFirst() {
            let pair = word.split(separator: "=", maxSplits: 1).map(String.init)
            guard pair.count == 2, ["limit", "warning", "cycle", "reserve"].contains(pair[0]), settings[pair[0]] == nil else {
                throw BudgetError(field: "budget", reason: "'\(word.prefix(40))' is not limit=, warning=, cycle= or reserve= (each at most once)")
            }
            settings[pair[0]] = pair[1]
        }
        guard let limitText = settings["limit"] else { throw BudgetError(field: "limit", reason: "missing: limit=SIZE") }
        let limit = try Self.bytes(limitText, field: "limit")
        var warning: Int64? = Self.defaultWarning(for: limit)
        if let text = settings["warning"] { warning = text == "none" ? nil : try Self.bytes(text, field: "warning") }
        try self.init(
            name: name, selector: selector, limitBytes: limit, warningBytes: warning,
            cycle: try settings["cycle"].map { text throws(BudgetError) in try BudgetCycle(parsing: text) } ?? .monthly,
            reserveBytes: try settings["reserve"].map { text throws(BudgetError) in try Self.bytes(text, field: "reserve") } ?? 0)
    }
}

/// A budget from the configuration file, with where: `FILE:LINE`.
public struct ConfiguredBudget: Sendable, Hashable {
    /// The budget the line defines.
    public var budget: DataBudget
    /// Where: `FILE:LINE`.
    public var origin: String

    /// A configured budget given field by field.
    public init(budget: DataBudget, origin: String) {
        self.budget = budget
        self.origin = origin
    }
}
