import Foundation
import GRDB
import ReachabilityCore

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
    static func writeBudgets(_ checkpoint: BudgetCheckpoint, _ db: Database) throws {
        try db.execute(sql: "DELETE FROM budget")
        try db.execute(sql: "DELETE FROM budget_counter")
        for account in checkpoint.accounts { try writeBudget(account, db) }
        for (index, baseline) in checkpoint.baselines {
            try db.execute(
                sql: "INSERT INTO budget_counter (interfaceIndex, name, receivedBytes, sentBytes, budgets, bootID) VALUES (?, ?, ?, ?, ?, ?)",
                arguments: [
                    index, baseline.name, Int64(bitPattern: baseline.receivedBytes), Int64(bitPattern: baseline.sentBytes),
                    baseline.budgets.joined(separator: "\n"), checkpoint.bootID,
                ])
        }
    }

    /// Writes one budget's row, replacing the stored one of that name.
    static func writeBudget(_ account: BudgetAccount, _ db: Database) throws {
        let budget = account.budget
        try db.execute(
            sql: """
                INSERT OR REPLACE INTO budget (name, selector, limitBytes, warningBytes, cycle, reserveBytes, usedBytes, cycleStart,
                    cycleEnd, snoozed, untrustedBytes, origin) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [
                budget.name, budget.selector.description, budget.limitBytes, budget.warningBytes, budget.cycle.description,
                budget.reserveBytes, account.usedBytes, account.cycleStart, account.cycleEnd, account.isSnoozed,
                account.untrustedBytes, account.origin,
            ])
    }

    /// The stored budgets, and the baselines taken in boot `bootID`. A row this build cannot
    /// read (a newer selector or cycle) is an error naming it, not a budget silently dropped.
    func loadBudgets(bootID: String) throws(QueueError) -> BudgetCheckpoint {
        do {
            return try pool.read { db in
                var accounts: [BudgetAccount] = []
                for row in try Row.fetchAll(db, sql: "SELECT * FROM budget ORDER BY name") {
                    let name: String = row["name"]
                    do throws(BudgetError) {
                        let budget = try DataBudget(
                            name: name, selector: try BudgetSelector(parsing: row["selector"]), limitBytes: row["limitBytes"],
                            warningBytes: row["warningBytes"], cycle: try BudgetCycle(parsing: row["cycle"]), reserveBytes: row["reserveBytes"])
                        accounts.append(
                            BudgetAccount(
                                budget: budget, usedBytes: row["usedBytes"], cycleStart: row["cycleStart"], cycleEnd: row["cycleEnd"],
                                isSnoozed: row["snoozed"], untrustedBytes: row["untrustedBytes"], origin: row["origin"]))
                    } catch {
                        throw QueueError.storage("the stored budget '\(name)' cannot be read by this version (\(error))")
                    }
                }
                var baselines: [Int32: BudgetLedger.Baseline] = [:]
                for row in try Row.fetchAll(db, sql: "SELECT * FROM budget_counter WHERE bootID = ?", arguments: [bootID]) {
                    let budgets: String = row["budgets"]
                    let (received, sent): (Int64, Int64) = (row["receivedBytes"], row["sentBytes"])
                    baselines[row["interfaceIndex"]] = BudgetLedger.Baseline(
                        name: row["name"], receivedBytes: UInt64(bitPattern: received), sentBytes: UInt64(bitPattern: sent),
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
    /// ``saveBudgets(_:)`` on the caller's thread (the budget keeper's own queue).
    func saveBudgetsNow(_ checkpoint: BudgetCheckpoint) throws(QueueError) {
        do {
            try pool.write { db in try Self.writeBudgets(checkpoint, db) }
        } catch {
            throw Self.queueError(error, doing: "record the data budgets")
        }
    }

    /// One budget changed through the API: its row written (`account`), or removed (`name`).
    func saveBudget(_ account: BudgetAccount?, removing name: String?) throws(QueueError) {
        do {
            try pool.write { db in
                if let account { try Self.writeBudget(account, db) }
                if let name { try db.execute(sql: "DELETE FROM budget WHERE name = ?", arguments: [name]) }
            }
        } catch {
            throw Self.queueError(error, doing: "record the data budget")
        }
    }
}
