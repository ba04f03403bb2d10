import ReachabilityCore
import Testing

/// Seconds since 1970 of a UTC date and time.
func utc(_ year: Int64, _ month: Int64, _ day: Int64, _ hour: Int64 = 0, _ minute: Int64 = 0) -> Int64 {
    CivilDate(year: year, month: month, day: day).days * 86_400 + hour * 3600 + minute * 60
}

struct CycleRow: Sendable, CustomTestStringConvertible {
    var cycle: String
    var now: Int64
    var offset: Int64
    var start: Int64?
    var end: Int64?
    var testDescription: String { "\(cycle) at \(RFC3339Time.utcText(now) ?? "?") offset \(offset)" }
}

private let cycleRows: [CycleRow] = [
    CycleRow(cycle: "monthly:1", now: utc(2026, 11, 26, 19), offset: 0, start: utc(2026, 11, 1), end: utc(2026, 12, 1)),
    CycleRow(cycle: "monthly:14", now: utc(2026, 11, 26), offset: 0, start: utc(2026, 11, 14), end: utc(2026, 12, 14)),
    CycleRow(cycle: "monthly:14", now: utc(2026, 11, 13, 23, 59), offset: 0, start: utc(2026, 10, 14), end: utc(2026, 11, 14)),
    CycleRow(cycle: "monthly:14", now: utc(2026, 11, 14), offset: 0, start: utc(2026, 11, 14), end: utc(2026, 12, 14)),
    // Day 31 in a 30-day month and in February: the month's last day, as Android does.
    CycleRow(cycle: "monthly:31", now: utc(2026, 11, 15), offset: 0, start: utc(2026, 10, 31), end: utc(2026, 11, 30)),
    CycleRow(cycle: "monthly:31", now: utc(2027, 2, 28, 12), offset: 0, start: utc(2027, 2, 28), end: utc(2027, 3, 31)),
    CycleRow(cycle: "monthly:30", now: utc(2028, 2, 29, 1), offset: 0, start: utc(2028, 2, 29), end: utc(2028, 3, 30)),
    CycleRow(cycle: "monthly:1", now: utc(2026, 12, 31, 23), offset: 0, start: utc(2026, 12, 1), end: utc(2027, 1, 1)),
    // 2026-11-26 is a Thursday.
    CycleRow(cycle: "weekly:mon", now: utc(2026, 11, 26, 10), offset: 0, start: utc(2026, 11, 23), end: utc(2026, 11, 30)),
    CycleRow(cycle: "weekly:thu", now: utc(2026, 11, 26, 0), offset: 0, start: utc(2026, 11, 26), end: utc(2026, 12, 3)),
    CycleRow(cycle: "weekly:5", now: utc(2026, 11, 26, 10), offset: 0, start: utc(2026, 11, 20), end: utc(2026, 11, 27)),
    CycleRow(cycle: "daily", now: utc(2026, 11, 26, 19), offset: 0, start: utc(2026, 11, 26), end: utc(2026, 11, 27)),
    // Local midnight an hour east of UTC: 23:00 UTC the evening before.
    CycleRow(cycle: "daily", now: utc(2026, 11, 26, 23, 30), offset: 3600, start: utc(2026, 11, 26, 23), end: utc(2026, 11, 27, 23)),
    CycleRow(cycle: "monthly:1", now: utc(2026, 11, 30, 23, 30), offset: 3600, start: utc(2026, 11, 30, 23), end: utc(2026, 12, 31, 23)),
    CycleRow(cycle: "none", now: utc(2026, 11, 26), offset: 0, start: nil, end: nil),
    // Before 1970 the arithmetic still holds (a clock that went far back).
    CycleRow(cycle: "monthly:1", now: -86_400 * 3, offset: 0, start: utc(1969, 12, 1), end: utc(1970, 1, 1)),
]

@Test(arguments: cycleRows)
func cycleWindows(_ row: CycleRow) throws {
    let cycle = try BudgetCycle(parsing: row.cycle)
    let window = cycle.window(containing: row.now, utcOffset: { _ in row.offset })
    #expect(window?.start == row.start)
    #expect(window?.end == row.end)
    #expect(cycle.description.hasPrefix(row.cycle.prefix(7)))
}

@Test(arguments: ["monthly:0", "monthly:32", "monthly:", "monthly", "monthly:1x", "weekly:funday", "weekly:8", "weekly:0", "hourly", "daily:1", "", "none:1", "monthly:-1", "monthly:001"])
func badCyclesAreRefusedWithTheField(_ text: String) {
    #expect(throws: BudgetError.self) { try BudgetCycle(parsing: text) }
    do { _ = try BudgetCycle(parsing: text) } catch { #expect(error.field == "cycle") }
}

@Test func weeklyNamesAndNumbersAreOneCycle() throws {
    #expect(try BudgetCycle(parsing: "weekly:1") == BudgetCycle(parsing: "weekly:mon"))
    #expect(try BudgetCycle(parsing: "weekly:sun").description == "weekly:sun")
    // One spelling each: what is printed parses back, and the contract's pattern agrees.
    for text in ["weekly:SUN", "weekly:Mon", "weekly:07", "monthly:01"] {
        #expect(throws: BudgetError.self) { try BudgetCycle(parsing: text) }
    }
}

private func interface(_ name: String, _ type: InterfaceType, expensive: Bool = false, ssid: String? = nil, index: Int32 = 2) -> Interface {
    Interface(
        name: name, index: index, type: type, isExpensive: expensive, isUp: true, isRunning: true,
        wifi: ssid.map { WifiFacts(mode: .station, association: WifiAssociation(ssid: $0, bssid: "02:00:00:00:00:01")) })
}

struct SelectorRow: Sendable, CustomTestStringConvertible {
    var selector: String
    var interface: Interface
    var matches: Bool
    var testDescription: String { "\(selector) on \(interface.name)" }
}

private let selectorRows: [SelectorRow] = [
    SelectorRow(selector: "cellular", interface: interface("wwan0", .cellular, expensive: true), matches: true),
    SelectorRow(selector: "cellular", interface: interface("usb0", .wired, expensive: true), matches: false),
    SelectorRow(selector: "expensive", interface: interface("usb0", .wired, expensive: true), matches: true),
    SelectorRow(selector: "expensive", interface: interface("eth0", .wired), matches: false),
    SelectorRow(selector: "wired", interface: interface("eth0", .wired), matches: true),
    SelectorRow(selector: "wifi", interface: interface("wlan0", .wifi, ssid: "Home"), matches: true),
    SelectorRow(selector: "iface:wwan*", interface: interface("wwan0", .cellular), matches: true),
    SelectorRow(selector: "iface:wwan*", interface: interface("wlan0", .wifi), matches: false),
    SelectorRow(selector: "ssid:*iPhone*", interface: interface("wlan0", .wifi, ssid: "Ana's iPhone"), matches: true),
    SelectorRow(selector: "ssid:*iPhone*", interface: interface("wlan0", .wifi, ssid: "Home"), matches: false),
    SelectorRow(selector: "ssid:*", interface: interface("wlan0", .wifi), matches: false),
]

@Test(arguments: selectorRows)
func selectorsMatchTheClassifiedInterface(_ row: SelectorRow) throws {
    let selector = try BudgetSelector(parsing: row.selector)
    #expect(selector.matches(row.interface) == row.matches)
    #expect(selector.description == row.selector)
}

@Test(arguments: ["", "cell", "iface:", "ssid:", "iface:[abc", "iface:" + String(repeating: "a", count: 65), "ssid:a\u{7}b", "mac:00:11", "Cellular"])
func badSelectorsAreRefused(_ text: String) {
    #expect(throws: BudgetError.self) { try BudgetSelector(parsing: text) }
}

struct BudgetInputRow: Sendable, CustomTestStringConvertible {
    var name: String
    var limit: Int64
    var warning: Int64?
    var reserve: Int64
    var field: String?
    var testDescription: String { "\(name) \(limit)/\(warning.map(String.init) ?? "-")/\(reserve) → \(field ?? "ok")" }
}

private let inputRows: [BudgetInputRow] = [
    BudgetInputRow(name: "sim", limit: 2_000_000_000, warning: 1_600_000_000, reserve: 0, field: nil),
    BudgetInputRow(name: "a.b_c-1", limit: 1, warning: nil, reserve: 0, field: nil),
    BudgetInputRow(name: "sim", limit: DataBudget.maxBytes, warning: DataBudget.maxBytes, reserve: DataBudget.maxBytes - 1, field: nil),
    BudgetInputRow(name: "", limit: 1, warning: nil, reserve: 0, field: "name"),
    BudgetInputRow(name: ".hidden", limit: 1, warning: nil, reserve: 0, field: "name"),
    BudgetInputRow(name: "a/b", limit: 1, warning: nil, reserve: 0, field: "name"),
    BudgetInputRow(name: "sïm", limit: 1, warning: nil, reserve: 0, field: "name"),
    BudgetInputRow(name: String(repeating: "n", count: 65), limit: 1, warning: nil, reserve: 0, field: "name"),
    BudgetInputRow(name: "sim", limit: 0, warning: nil, reserve: 0, field: "limit"),
    BudgetInputRow(name: "sim", limit: -5, warning: nil, reserve: 0, field: "limit"),
    BudgetInputRow(name: "sim", limit: DataBudget.maxBytes + 1, warning: nil, reserve: 0, field: "limit"),
    BudgetInputRow(name: "sim", limit: 100, warning: 101, reserve: 0, field: "warning"),
    BudgetInputRow(name: "sim", limit: 100, warning: -1, reserve: 0, field: "warning"),
    BudgetInputRow(name: "sim", limit: 100, warning: nil, reserve: 100, field: "reserve"),
    BudgetInputRow(name: "sim", limit: 100, warning: nil, reserve: -1, field: "reserve"),
]

@Test(arguments: inputRows)
func budgetsAreRangeChecked(_ row: BudgetInputRow) {
    do {
        let budget = try DataBudget(
            name: row.name, selector: BudgetSelector(parsing: "cellular"), limitBytes: row.limit, warningBytes: row.warning, reserveBytes: row.reserve)
        #expect(row.field == nil)
        #expect(budget.limitBytes == row.limit)
    } catch {
        #expect(error.field == row.field)
        #expect(!error.description.contains("\n"))
    }
}

@Test func theDefaultWarningIsEightyPercentWithoutOverflow() {
    #expect(DataBudget.defaultWarning(for: 2_000_000_000) == 1_600_000_000)
    #expect(DataBudget.defaultWarning(for: 1) == 0)
    #expect(DataBudget.defaultWarning(for: DataBudget.maxBytes) <= DataBudget.maxBytes)
    #expect(DataBudget.defaultWarning(for: Int64.max) > 0)
}

@Test(arguments: ["2GB", "500MiB", "1048576", "1.5GiB"])
func sizesParse(_ text: String) throws {
    #expect(try DataBudget.bytes(text, field: "limit") > 0)
}

@Test(arguments: ["", "-1", "2 parsecs", "1e9", "9PiB", "nan", "99999999999999999999"])
func badSizesNameTheField(_ text: String) {
    do {
        _ = try DataBudget.bytes(text, field: "--limit")
        Issue.record("\(text) parsed")
    } catch {
        #expect(error.field == "--limit")
    }
}

@Test func configurationLinesDefineBudgets() throws {
    let text = """
        wwan0 = cellular
        budget sim = cellular limit=2GB warning=1.5GB cycle=monthly:14 reserve=100MB
        budget ship = ssid:Ship* limit=30GB warning=none cycle=weekly:mon
        budget plain = iface:usb* limit=1GB
        """
    let file = try ConfigurationFile(parsing: text, name: "reach.conf")
    #expect(file.rules.count == 1)
    #expect(file.budgets.map(\.budget.name) == ["sim", "ship", "plain"])
    #expect(file.budgets[0].origin == "reach.conf:2")
    #expect(file.budgets[0].budget.reserveBytes == 100_000_000)
    #expect(file.budgets[0].budget.warningBytes == 1_500_000_000)
    #expect(file.budgets[1].budget.warningBytes == nil)
    #expect(file.budgets[2].budget.warningBytes == 800_000_000)
    #expect(file.budgets[2].budget.cycle == .monthly)
}

@Test func badBudgetLinesAreEachReported() {
    let text = """
        budget sim = cellular
        budget x = cellular limit=1GB limit=2GB
        budget y = phone limit=1GB
        budget z = wifi limit=1GB cycle=yearly
        budget sim2 = wifi limit=1GB colour=red
        budget ok = wifi limit=1GB
        budget ok = wifi limit=2GB
        """
    let problems = ConfigurationFile.problems(in: text, name: "reach.conf")
    #expect(problems.map(\.line) == [1, 2, 3, 4, 5, 7])
    #expect(problems.allSatisfy { $0.kind == "budget" && !$0.description.contains("\n") })
}
