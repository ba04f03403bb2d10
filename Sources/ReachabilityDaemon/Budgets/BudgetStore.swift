import ReachabilityCore
import ReachabilitySQLite

/// The data budgets' part of `queue.sqlite`: every budget's count and the interfaces' last
/// counters, written whole in one transaction (a checkpoint), read back at start.
extension QueueStore {
    /// What a checkpoint holds.
    struct BudgetCheckpoint: Sendable, Hashable {
        var accounts: [BudgetAccount]
        var baselines: [Int32: BudgetLedger.Baseline]
        /// The boot the baselines were taken in (`/proc/sys/kernel/random/boot_id`): counters
        /// start over at boot, so another boot's baselines are dropped.
        var bootID: String
    }

    /// Replaces the stored budgets and baselines with `checkpoint`'s, in one transaction.
    static func writeBudgets(_ checkpoint: BudgetCheckpoint, _ db: SQLiteConnection) throws {
        try db.execute("DELETE FROM budget")
        try db.execute("DELETE FROM budget_counter")
        for account in checkpoint.accounts { try writeBudget(account, db) }
        for (index, baseline) in checkpoint.baselines {
            try db.execute(
                "INSERT INTO budget_counter (interfaceIndex, name, receivedBytes, sentBytes, budgets, bootID) VALUES (?, ?, ?, ?, ?, ?)",
                [
                    index, baseline.name, Int64(bitPattern: baseline.receivedBytes), Int64(bitPattern: baseline.sentBytes),
                    baseline.budgets.joined(separator: "\n"), checkpoint.bootID,
                ])
        }
    }

    /// Writes one budget's row, replacing the stored one of that name.
    static func writeBudget(_ account: BudgetAccount, _ db: SQLiteConnection) throws {
        let budget = account.budget
        try db.execute(
            """
            INSERT OR REPLACE INTO budget (name, selector, limitBytes, warningBytes, cycle, reserveBytes, usedBytes, cycleStart,
                cycleEnd, snoozed, untrustedBytes, origin) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """,
            [
                budget.name, budget.selector.description, budget.limitBytes, budget.warningBytes, budget.cycle.description,
                budget.reserveBytes, account.usedBytes, account.cycleStart, account.cycleEnd, account.isSnoozed,
                account.untrustedBytes, account.origin,
            ])
    }

    /// The stored budgets, and the baselines taken in boot `bootID`. A row this build cannot
    /// read (a newer selector or cycle) is an error naming it, not a budget silently dropped.
    func loadBudgets(bootID: String) throws(QueueError) -> BudgetCheckpoint {
        do {
            return try reader.sync { db in
                var accounts: [BudgetAccount] = []
                for row in try db.rows("SELECT * FROM budget ORDER BY name") {
                    let name: String = try row.get("name")
                    do throws(BudgetError) {
                        let budget = try DataBudget(
                            name: name, selector: try BudgetSelector(parsing: try Self.column(row, "selector")), limitBytes: try Self.column(row, "limitBytes"),
                            warningBytes: try Self.column(row, "warningBytes"), cycle: try BudgetCycle(parsing: try Self.column(row, "cycle")),
                            reserveBytes: try Self.column(row, "reserveBytes"))
                        accounts.append(
                            BudgetAccount(
                                budget: budget, usedBytes: try Self.column(row, "usedBytes"), cycleStart: try Self.column(row, "cycleStart"),
                                cycleEnd: try Self.column(row, "cycleEnd"), isSnoozed: try Self.column(row, "snoozed"),
                                untrustedBytes: try Self.column(row, "untrustedBytes"), origin: try Self.column(row, "origin")))
                    } catch {
                        throw QueueError.storage("the stored budget '\(name)' cannot be read by this version (\(error))")
                    }
                }
                var baselines: [Int32: BudgetLedger.Baseline] = [:]
                for row in try db.rows("SELECT * FROM budget_counter WHERE bootID = ?", [bootID]) {
                    let budgets: String = try row.get("budgets")
                    let (received, sent): (Int64, Int64) = (try row.get("receivedBytes"), try row.get("sentBytes"))
                    baselines[try row.get("interfaceIndex")] = BudgetLedger.Baseline(
                        name: try row.get("name"), receivedBytes: UInt64(bitPattern: received), sentBytes: UInt64(bitPattern: sent),
                        budgets: budgets.split(separator: "\n").map(String.init))
                }
                return BudgetCheckpoint(accounts: accounts, baselines: baselines, bootID: bootID)
            }
        } catch {
            throw Self.queueError(error, doing: "read the data budgets")
        }
    }
}

extension QueueStore {
    /// A budget row's column inside the budget parser's `throws(BudgetError)` block: a column
    /// that does not hold what it should is a budget this version cannot read.
    fileprivate static func column<T: SQLiteValueConvertible>(_ row: SQLiteRow, _ name: String) throws(BudgetError) -> T {
        do { return try row.get(name) } catch { throw BudgetError(field: name, reason: error.message) }
    }

    /// ``saveBudgets(_:)`` on the caller's thread (the budget keeper's own queue).
    func saveBudgetsNow(_ checkpoint: BudgetCheckpoint) throws(QueueError) {
        do {
            try writer.sync { db in try db.transaction { try Self.writeBudgets(checkpoint, db) } }
        } catch {
            throw Self.queueError(error, doing: "record the data budgets")
        }
    }

    /// One budget changed through the API: its row written (`account`), or removed (`name`).
    func saveBudget(_ account: BudgetAccount?, removing name: String?) throws(QueueError) {
        do {
            try writer.sync { db in
                try db.transaction {
                    if let account { try Self.writeBudget(account, db) }
                    if let name { try db.execute("DELETE FROM budget WHERE name = ?", [name]) }
                }
            }
        } catch {
            throw Self.queueError(error, doing: "record the data budget")
        }
    }
}
