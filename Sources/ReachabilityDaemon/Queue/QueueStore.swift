import ReachabilityTransfers
import Foundation
import GRDB
import Glibc

/// The queue's SQLite database (`queue.sqlite` in the state directory): jobs and their
/// history. WAL mode with `synchronous=FULL`, so a job is on disk before the client hears it
/// was accepted, and a `kill -9` or a power loss loses no committed change. Reads go on while a
/// write fails (a full file system).
final class QueueStore: Sendable {
    /// One row of a job's history.
    struct HistoryEntry: Sendable, Hashable, Codable {
        var at: Date
        var state: String
        var reason: String?
    }

    /// A stored job and what only the store knows about it.
    struct StoredJob: Sendable {
        var job: QueueJob
        /// Its credentials were not stored: it cannot run again after a restart.
        var hasSecrets: Bool
    }

    let path: String
    let pool: DatabasePool
    /// Copies the log into the database file, off the writer's commits.
    let checkpointer: QueueCheckpointer
    /// The log's size after a checkpoint, at most (SQLite's `journal_size_limit`).
    static let journalSizeLimit = 1 << 20

    /// Opens (creating) `queue.sqlite` in `directory`, which must exist and be the daemon's own.
    init(directory: String) throws(QueueError) {
        path = directory + "/queue.sqlite"
        do {
            try Self.createPrivately(path)
            var configuration = Configuration()
            configuration.busyMode = .timeout(5)
            configuration.prepareDatabase { db in
                // The log is checkpointed by ``QueueCheckpointer`` on a connection of its own;
                // the writer does it in its commit only past the backstop. Truncated to 1 MiB
                // after, so a small state file system is not filled by the log.
                try db.execute(sql: "PRAGMA wal_autocheckpoint = \(QueueCheckpointer.backstopPages)")
                try db.execute(sql: "PRAGMA journal_size_limit = \(Self.journalSizeLimit)")
            }
            pool = try DatabasePool(path: path, configuration: configuration)
            // Only now: GRDB sets `synchronous = NORMAL` on its writer when it turns WAL on, after
            // `prepareDatabase`; NORMAL syncs the log at checkpoints only, so a power loss could
            // take back jobs the client was told were added.
            try pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA synchronous = FULL") }
            try Self.refuseNewer(pool, path: path)
            try QueueMigrations.migrator.migrate(pool)
            checkpointer = try QueueCheckpointer(path: path)
        } catch let error as QueueError {
            throw error
        } catch {
            throw Self.queueError(error, doing: "open the queue database \(path)")
        }
    }

    /// A database a newer version changed (a migration this build does not know) is refused,
    /// untouched: using it could lose what that version records.
    private static func refuseNewer(_ pool: DatabasePool, path: String) throws {
        let unknown = try pool.read { db in
            try QueueMigrations.migrator.appliedIdentifiers(db).subtracting(QueueMigrations.migrator.migrations)
        }
        guard unknown.isEmpty else {
            throw QueueError.storage(
                "\(path) was written by a newer version of reach (it has \(unknown.sorted().joined(separator: ", "))): refusing to use it; run that version, or move the file away to start an empty queue")
        }
    }

    /// Creates the database file with mode 0600 (its `-wal` and `-shm` files take the same mode),
    /// never through a symlink; an existing regular file is kept.
    private static func createPrivately(_ path: String) throws(QueueError) {
        let fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            let reason = errno == ELOOP ? "it is a symlink" : String(cString: strerror(errno))
            throw errno == ENOSPC ? .storageFull("cannot create \(path): no space left") : .storage("cannot create \(path): \(reason)")
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { throw .storage("\(path) is not a regular file") }
    }

    // MARK: Writing

    /// One change to the database, its JSON already encoded (so a batch cannot fail half-way
    /// for a reason that retrying would not fix).
    enum Write: Sendable {
        /// A new job; its id comes back from ``write(_:)``.
        case insert(spec: String, hasSecrets: Bool, state: JobStatus, reason: JobReason?, at: Date)
        /// The job's state, reason, progress and result, with a history row when one is given.
        case save(QueueJob, result: String?, history: HistoryEntry?)

        /// What it records, for a message that it could not: "record the job", "record the change".
        var doing: String {
            if case .insert = self { return "record the job" }
            return "record the change"
        }

        /// Saving `job` (its result encoded now).
        static func save(_ job: QueueJob, history: HistoryEntry?) -> Write {
            .save(job, result: job.result.flatMap { try? QueueStore.json($0) }, history: history)
        }
    }

    /// Runs `body` on GRDB's writer queue, a thread of its own: the caller goes on at once, and
    /// no thread of the cooperative pool waits for the disk.
    func onWriterQueue(_ body: @escaping @Sendable (Database) -> Void) {
        pool.asyncWriteWithoutTransaction(body)
    }

    /// Writes `batch` in order in one transaction of `db` (a connection of ``onWriterQueue(_:)``),
    /// committed and synced when it returns. A job saved twice in the batch has its row written
    /// once, with the later values; every history row is kept. Returns each insert's new id (nil
    /// for a save). Throws SQLite's error: each caller says what it could not record
    /// (``queueError(_:doing:)`` with ``Write/doing``).
    static func write(_ batch: [Write], in db: Database) throws -> [Int64?] {
        var lastSave: [Int64: Int] = [:]
        for (index, write) in batch.enumerated() { if case .save(let job, _, _) = write { lastSave[job.id] = index } }
        var ids: [Int64?] = []
        ids.reserveCapacity(batch.count)
        try db.inTransaction {
            for (index, write) in batch.enumerated() {
                switch write {
                case .insert(let spec, let hasSecrets, let state, let reason, let at):
                    ids.append(try insert(db, spec: spec, hasSecrets: hasSecrets, state: state, reason: reason, at: at))
                case .save(let job, let result, let history):
                    if lastSave[job.id] == index { try update(db, job, result: result) }
                    if let history { try appendHistory(db, id: job.id, history) }
                    ids.append(nil)
                }
            }
            return .commit
        }
        return ids
    }

    private static func insert(_ db: Database, spec: String, hasSecrets: Bool, state: JobStatus, reason: JobReason?, at: Date) throws -> Int64 {
        // Cached statements: compiled (and authorized) once per connection, not once per job.
        try db.cachedStatement(
            sql: """
                INSERT INTO job (spec, hasSecrets, state, reasonCode, reasonMessage, reasonUntil, createdAt, updatedAt)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """
        ).execute(
            arguments: [spec, hasSecrets, state.rawValue, reason?.code, reason?.message, reason?.until?.timeIntervalSince1970,
                at.timeIntervalSince1970, at.timeIntervalSince1970])
        let id = db.lastInsertedRowID
        try appendHistory(db, id: id, HistoryEntry(at: at, state: state.rawValue, reason: reason?.message ?? "added"))
        return id
    }

    private static func update(_ db: Database, _ job: QueueJob, result: String?) throws {
        try db.cachedStatement(
            sql: """
                UPDATE job SET state = ?, reasonCode = ?, reasonMessage = ?, reasonUntil = ?, completedBytes = ?, totalBytes = ?,
                transferredBytes = ?, attempts = ?, result = ?, updatedAt = ?, finishedAt = ? WHERE id = ?
                """
        ).execute(
            arguments: [job.state.rawValue, job.reason?.code, job.reason?.message, job.reason?.until?.timeIntervalSince1970,
                job.progress.completedBytes, job.progress.totalBytes, job.progress.transferredBytes, job.attempts, result,
                job.updatedAt.timeIntervalSince1970, job.finishedAt?.timeIntervalSince1970, job.id])
    }

    private static func appendHistory(_ db: Database, id: Int64, _ entry: HistoryEntry) throws {
        try db.cachedStatement(sql: "INSERT INTO history (jobID, at, state, reason) VALUES (?, ?, ?, ?)").execute(
            arguments: [id, entry.at.timeIntervalSince1970, entry.state, entry.reason])
    }

    // MARK: Reading

    /// Every job, oldest first.
    func all() throws(QueueError) -> [StoredJob] {
        try read("read the queue") { db in
            try Row.fetchAll(db, sql: "SELECT * FROM job ORDER BY id").map(Self.storedJob)
        }
    }

    /// A job's history, oldest first.
    func history(of id: Int64) throws(QueueError) -> [HistoryEntry] {
        try read("read job \(id)'s history") { db in
            try Row.fetchAll(db, sql: "SELECT at, state, reason FROM history WHERE jobID = ? ORDER BY id", arguments: [id]).map { row in
                HistoryEntry(at: Date(timeIntervalSince1970: row["at"]), state: row["state"], reason: row["reason"])
            }
        }
    }

    /// `PRAGMA integrity_check`: "ok" for a sound database.
    func integrityCheck() throws(QueueError) -> String {
        try read("check the queue database") { db in try String.fetchOne(db, sql: "PRAGMA integrity_check") ?? "no answer" }
    }

    /// A trivial read: the database answers (the watchdog's check).
    func ping() -> Bool { (try? pool.read { db in try Int.fetchOne(db, sql: "SELECT 1") }) == 1 }

    private static func storedJob(_ row: Row) throws -> StoredJob {
        let spec = try QueueJSON.decode(QueueJobSpec.self, from: Data((row["spec"] as String).utf8))
        let resultText: String? = row["result"]
        let reasonCode: String? = row["reasonCode"]
        let until: Double? = row["reasonUntil"]
        let finished: Double? = row["finishedAt"]
        let state = JobStatus(rawValue: row["state"])
        guard JobStatus.all.contains(state) else {
            throw QueueError.storage(
                "job \(row["id"] as Int64) is in state '\(state.rawValue.prefix(40))', which this version does not know (a newer version wrote it): refusing to run the queue")
        }
        let job = QueueJob(
            id: row["id"], spec: spec, state: state,
            reason: reasonCode.map { JobReason(code: $0, message: row["reasonMessage"] ?? $0, until: until.map(Date.init(timeIntervalSince1970:))) },
            progress: QueueProgress(completedBytes: row["completedBytes"], totalBytes: row["totalBytes"], transferredBytes: row["transferredBytes"]),
            attempts: row["attempts"],
            result: try resultText.map { try QueueJSON.decode(QueueResult.self, from: Data($0.utf8)) },
            createdAt: Date(timeIntervalSince1970: row["createdAt"]), updatedAt: Date(timeIntervalSince1970: row["updatedAt"]),
            finishedAt: finished.map(Date.init(timeIntervalSince1970:)))
        return StoredJob(job: job, hasSecrets: row["hasSecrets"])
    }

    // MARK: Errors

    private func read<T>(_ doing: String, _ body: (Database) throws -> T) throws(QueueError) -> T {
        do { return try pool.read(body) } catch { throw Self.queueError(error, doing: doing) }
    }

    static func json<T: Encodable>(_ value: T) throws(QueueError) -> String {
        do { return String(decoding: try QueueJSON.encode(value), as: UTF8.self) } catch { throw .storage("cannot encode: \(error)") }
    }

    static func queueError(_ error: any Error, doing: String) -> QueueError {
        if let error = error as? QueueError { return error }
        if let error = error as? DatabaseError {
            if error.resultCode == .SQLITE_FULL { return .storageFull("cannot \(doing): the state directory's file system is full") }
            return .storage("cannot \(doing): \(error.message ?? "SQLite error \(error.resultCode.rawValue)")")
        }
        return .storage("cannot \(doing): \(error)")
    }
}

/// The database's versions, applied in order; each runs once (GRDB records them).
enum QueueMigrations {
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: jobs and history") { db in
            try db.execute(
                sql: """
                    CREATE TABLE job (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        spec TEXT NOT NULL,
                        hasSecrets BOOLEAN NOT NULL DEFAULT 0,
                        state TEXT NOT NULL,
                        reasonCode TEXT,
                        reasonMessage TEXT,
                        reasonUntil DOUBLE,
                        completedBytes INTEGER NOT NULL DEFAULT 0,
                        totalBytes INTEGER,
                        transferredBytes INTEGER NOT NULL DEFAULT 0,
                        attempts INTEGER NOT NULL DEFAULT 0,
                        result TEXT,
                        createdAt DOUBLE NOT NULL,
                        updatedAt DOUBLE NOT NULL,
                        finishedAt DOUBLE
                    );
                    CREATE INDEX job_by_state ON job(state);
                    CREATE TABLE history (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        jobID INTEGER NOT NULL REFERENCES job(id) ON DELETE CASCADE,
                        at DOUBLE NOT NULL,
                        state TEXT NOT NULL,
                        reason TEXT
                    );
                    CREATE INDEX history_by_job ON history(jobID);
                    """)
        }
        migrator.registerMigration("v2: data budgets") { db in
            try db.execute(
                sql: """
                    CREATE TABLE budget (
                        name TEXT PRIMARY KEY NOT NULL,
                        selector TEXT NOT NULL,
                        limitBytes INTEGER NOT NULL,
                        warningBytes INTEGER,
                        cycle TEXT NOT NULL,
                        reserveBytes INTEGER NOT NULL,
                        usedBytes INTEGER NOT NULL,
                        cycleStart INTEGER NOT NULL,
                        cycleEnd INTEGER,
                        snoozed BOOLEAN NOT NULL,
                        untrustedBytes INTEGER NOT NULL,
                        origin TEXT
                    );
                    CREATE TABLE budget_counter (
                        interfaceIndex INTEGER PRIMARY KEY NOT NULL,
                        name TEXT NOT NULL,
                        receivedBytes INTEGER NOT NULL,
                        sentBytes INTEGER NOT NULL,
                        budgets TEXT NOT NULL,
                        bootID TEXT NOT NULL
                    );
                    """)
        }
        migrator.registerMigration("v3: no index on a job's state") { db in
            // Nothing reads jobs by state (the queue keeps them in memory), and the index cost
            // every add and every change two more pages of log, copied again at each checkpoint.
            try db.execute(sql: "DROP INDEX IF EXISTS job_by_state")
        }
        return migrator
    }
}
