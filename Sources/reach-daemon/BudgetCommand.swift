import ArgumentParser
import FoundationEssentials
import ReachCommands
import ReachabilityCore
import ReachabilityDaemon

/// `reach budget …`: the daemon's data budgets.
struct BudgetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "budget",
        abstract: "Set, list, reset, snooze and remove the daemon's data budgets per network.",
        discussion: """
            A budget counts all traffic (the kernel's interface counters, received and sent) of the \
            interfaces its selector matches: cellular, wifi, wired, expensive, iface:GLOB or \
            ssid:GLOB. Jobs whose bytes still to move exceed what is left (less the reserve) wait \
            with reason overBudget; a new cycle, a reset or a snooze releases them. Exit codes: 0 \
            success, 1 the daemon refused (no such budget, one defined in the configuration file), \
            64 bad usage or a budget the daemon rejects, 69 no daemon listening on the socket.
            """,
        subcommands: [
            BudgetSetCommand.self, BudgetListCommand.self, BudgetShowCommand.self, BudgetResetCommand.self, BudgetSnoozeCommand.self,
            BudgetRemoveCommand.self,
        ]
    )

    @OptionGroup var connection: QueueConnection
}

/// A budget name argument, checked before the daemon is asked.
struct BudgetNameArgument: ParsableArguments {
    @Argument(help: ArgumentHelp("The budget's name: 1-64 characters of A-Z a-z 0-9 . _ -.", valueName: "NAME"))
    var name: String

    func validate() throws {
        guard DataBudget.isValidName(name) else {
            throw ValidationError("'\(name.prefix(80))' is not a budget name: 1-64 characters of A-Z a-z 0-9 . _ - (not starting with '.')")
        }
    }
}

struct BudgetSetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "set", abstract: "Define a budget, or change one (its count is kept).")
    @OptionGroup var connection: QueueConnection
    @OptionGroup var budget: BudgetNameArgument

    @Option(name: .customLong("for"), help: ArgumentHelp("Which interfaces count: cellular, wifi, wired, expensive, iface:GLOB, ssid:GLOB.", valueName: "SELECTOR"))
    var selector: String

    @Option(help: ArgumentHelp("Bytes per cycle, received and sent together (2GB, 500MiB).", valueName: "SIZE"))
    var limit: String

    @Option(help: ArgumentHelp("Warn at this much, or 'none' (default: 80 % of the limit).", valueName: "SIZE"))
    var warning: String?

    @Option(help: ArgumentHelp("When the count starts over: monthly:DAY (1-31), weekly:DAY (mon-sun), daily or none (default: monthly:1), at local midnight.", valueName: "CYCLE"))
    var cycle = "monthly:1"

    @Option(help: ArgumentHelp("The last bytes of the limit, kept for user-initiated jobs (default: 0).", valueName: "SIZE"))
    var reserve = "0"

    /// The budget, checked here so that a bad value is a one-line usage error.
    func spec() throws -> BudgetSpec {
        do throws(BudgetError) {
            let limitBytes = try DataBudget.bytes(limit, field: "--limit")
            let warningBytes = try warning.flatMap { text throws(BudgetError) in text == "none" ? nil : try DataBudget.bytes(text, field: "--warning") }
            let spec = BudgetSpec(
                selector: selector, limitBytes: limitBytes, warningBytes: warningBytes, noWarning: warning == "none" ? true : nil, cycle: cycle,
                reserveBytes: try DataBudget.bytes(reserve, field: "--reserve"))
            _ = try spec.budget(named: budget.name)
            return spec
        } catch {
            // The option as typed: `--cycle: …`, not the API's field name.
            throw ValidationError(error.field.hasPrefix("--") ? error.description : "--\(error.field): \(error.reason)")
        }
    }

    func validate() throws { _ = try spec() }

    func run() async throws {
        let spec = try spec()
        let document = try await connection.withClient(command: "reach budget") { try await $0.setBudget(budget.name, spec) }
        printLine(BudgetFormat.table([document]))
    }
}

struct BudgetListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List the budgets: use, limit, state, cycle.")
    @OptionGroup var connection: QueueConnection
    @Flag(help: "Print the budgets as a JSON array.") var json = false

    func run() async throws {
        let budgets = try await connection.withClient(command: "reach budget") { try await $0.budgets() }
        printLine(json ? String(decoding: try QueueJSON.encode(budgets), as: UTF8.self) : BudgetFormat.table(budgets))
    }
}

struct BudgetShowCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "show", abstract: "Show one budget.")
    @OptionGroup var connection: QueueConnection
    @OptionGroup var budget: BudgetNameArgument
    @Flag(help: "Print the budget as JSON.") var json = false

    func run() async throws {
        let document = try await connection.withClient(command: "reach budget") { try await $0.budget(budget.name) }
        printLine(json ? String(decoding: try QueueJSON.encode(document), as: UTF8.self) : BudgetFormat.detail(document))
    }
}

/// `reset`, `snooze` and `remove`: one action on one budget, then its line.
protocol BudgetActionCommand: AsyncParsableCommand {
    var connection: QueueConnection { get }
    var budget: BudgetNameArgument { get }
    static var action: String { get }
}

extension BudgetActionCommand {
    func run() async throws {
        let document = try await connection.withClient(command: "reach budget") { try await $0.budgetAction(Self.action, budget.name) }
        printLine(BudgetFormat.table([document]))
    }
}

struct BudgetResetCommand: BudgetActionCommand {
    static let configuration = CommandConfiguration(commandName: "reset", abstract: "Start a budget's count over (and end a snooze).")
    static let action = "reset"
    @OptionGroup var connection: QueueConnection
    @OptionGroup var budget: BudgetNameArgument
}

struct BudgetSnoozeCommand: BudgetActionCommand {
    static let configuration = CommandConfiguration(
        commandName: "snooze", abstract: "Let jobs the budget holds run until its cycle ends (counting goes on).")
    static let action = "snooze"
    @OptionGroup var connection: QueueConnection
    @OptionGroup var budget: BudgetNameArgument
}

struct BudgetRemoveCommand: BudgetActionCommand {
    static let configuration = CommandConfiguration(commandName: "remove", abstract: "Remove a budget (its count is lost).")
    static let action = "remove"
    @OptionGroup var connection: QueueConnection
    @OptionGroup var budget: BudgetNameArgument
}

/// Budgets in words.
enum BudgetFormat {
    static func table(_ budgets: [BudgetDocument]) -> String {
        guard !budgets.isEmpty else { return "no budgets" }
        let rows = [["NAME", "FOR", "USED", "LIMIT", "STATE", "CYCLE ENDS", "INTERFACES"]] + budgets.map { budget in
            [
                budget.name, budget.selector, ByteCount.text(budget.usedBytes), ByteCount.text(budget.limitBytes), budget.state.rawValue,
                budget.cycleEnd ?? "never", budget.interfaces.isEmpty ? "-" : budget.interfaces.joined(separator: ","),
            ]
        }
        return QueueFormat.columns(rows)
    }

    /// `percent` to one decimal, `42.0`, as `%.1f` writes it (that is Foundation's, with ICU).
    /// Whatever the daemon answered (a used count far past a 1-byte limit), the number is
    /// clamped before it becomes an integer, so no answer can trap here.
    static func oneDecimal(_ percent: Double) -> String {
        guard percent.isFinite else { return percent.isNaN ? "?" : (percent > 0 ? "∞" : "-∞") }
        let tenths = Int64((min(max(percent, -1e15), 1e15) * 10).rounded())
        let magnitude = tenths.magnitude
        return "\(tenths < 0 ? "-" : "")\(magnitude / 10).\(magnitude % 10)"
    }

    static func detail(_ budget: BudgetDocument) -> String {
        let percent = budget.limitBytes > 0 ? Double(budget.usedBytes) * 100 / Double(budget.limitBytes) : 0
        return [
            "budget \(budget.name) (\(budget.source == "config" ? "from the configuration file" : "set through the API"))",
            "  for:        \(budget.selector) (now: \(budget.interfaces.isEmpty ? "no interface" : budget.interfaces.joined(separator: ", ")))",
            "  used:       \(ByteCount.text(budget.usedBytes)) of \(ByteCount.text(budget.limitBytes)) (\(Self.oneDecimal(percent)) %)",
            "  warning:    \(budget.warningBytes.map(ByteCount.text) ?? "none")",
            "  reserve:    \(ByteCount.text(budget.reserveBytes)) (for user-initiated jobs)",
            "  cycle:      \(budget.cycle), \(budget.cycleStart) to \(budget.cycleEnd ?? "a reset")",
            "  state:      \(budget.state.rawValue)",
        ].joined(separator: "\n")
    }
}
