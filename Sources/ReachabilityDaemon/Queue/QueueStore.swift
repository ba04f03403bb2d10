import FoundationEssentials
import Glibc
import ReachabilitySQLite
import ReachabilityTransfers

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
    /// The connection every change is written on, on a queue of its own.
    let writer: SQLiteSerialConnection
    /// The connection reads take (WAL: they go on while the writer commits, or fails to).
    let reader: SQLiteSerialConnection
    /// Copies the log into the database file, off the writer's commits.
    let checkpointer: QueueCheckpointer
    /// The log's size after a checkpoint, at most (SQLite's `journal_size_limit`).
    static let journalSizeLimit = 1 << 20

    /// Opens (creating) `queue.sqlite` in `directory`, which must exist and be the daemon's own.
    init(directory: String) throws(QueueError) {
        let path = directory + "/queue.sqlite"
        self.path = path
        do {
            try Self.createPrivately(path)
            writer = try SQLiteSerialConnection(path: path, label: "reach.queue.writer")
            try writer.sync { db in
                try Self.refuseNewer(db, path: path)
                // WAL with `synchronous = FULL`: the log is synced at each commit, so a power loss
                // takes back no job a client was told was added. The log is checkpointed by
                // ``QueueCheckpointer`` on a connection of its own; the writer does it in its
                // commit only past the backstop. Truncated to 1 MiB after, so a small state file
                // system is not filled by the log.
                try db.executeScript(
                    """
                    PRAGMA journal_mode = WAL;
                    PRAGMA synchronous = FULL;
                    PRAGMA foreign_keys = ON;
                    PRAGMA wal_autocheckpoint = \(QueueCheckpointer.backstopPages);
                    PRAGMA journal_size_limit = \(Self.journalSizeLimit);
                    """)
                try QueueMigrations.migrator.migrate(db)
            }
            reader = try SQLiteSerialConnection(path: path, label: "reach.queue.reader")
            try reader.sync { db in try db.executeScript("PRAGMA query_only = ON") }
            checkpointer = try QueueCheckpointer(path: path)
        } catch let error as QueueError {
            throw error
        } catch {
            throw Self.queueError(error, doing: "open the queue database \(path)")
        }
    }

    /// A database a newer version changed (a migration this build does not know) is refused,
    /// untouched: using it could lose what that version records.
    private static func refuseNewer(_ db: SQLiteConnection, path: String) throws {
        let unknown = try QueueMigrations.migrator.unknown(in: db)
        guard unknown.isEmpty else {
            throw QueueError.storage(
                "\(path) was written by a newer version of reach (it has \(unknown.joined(separator: ", "))): refusing to use it; run that version, or move the file away to start an empty queue")
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

    /// Runs `body` on the writer's queue, a thread of its own: the caller goes on at once, and
    /// no thread of the cooperative pool waits for the disk.
    func onWriterQueue(_ body: @escaping @Sendable (SQLiteConnection) -> Void) {
        writer.async(body)
    }

    /// Writes `batch` in order in one transaction of `db` (a connection of ``onWriterQueue(_:)``),
    /// committed and synced when it returns. A job saved twice in the batch has its row written
    /// once, with the later values; every history row is kept. Returns each insert's new id (nil
    /// for a save). Throws SQLite's error: each caller says what it could not record
    /// (``queueError(_:doing:)`` with ``Write/doing``).
    static func write(_ batch: [Write], in db: SQLiteConnection) throws -> [Int64?] {
        var lastSave: [Int64: Int] = [:]
        for (index, write) in batch.enumerated() { if case .save(let job, _, _) = write { lastSave[job.id] = index } }
        var ids: [Int64?] = []
        ids.reserveCapacity(batch.count)
        try db.transaction {
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
        }
        return ids
    }

    private static func insert(_ db: SQLiteConnection, spec: String, hasSecrets: Bool, state: JobStatus, reason: JobReason?, at: Date) throws -> Int64 {
        // The connection keeps each statement compiled: once per connection, not once per job.
        try db.execute(
            """
            INSERT INTO job (spec, hasSecrets, state, reasonCode, reasonMessage, reasonUntil, createdAt, updatedAt)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """,
            [spec, hasSecrets, state.rawValue, reason?.code, reason?.message, reason?.until?.timeIntervalSince1970,
                at.timeIntervalSince1970, at.timeIntervalSince1970])
        let id = db.lastInsertedRowID
        try appendHistory(db, id: id, HistoryEntry(at: at, state: state.rawValue, reason: reason?.message ?? "added"))
        return id
    }

    private static func update(_ db: SQLiteConnection, _ job: QueueJob, result: String?) throws {
        try db.execute(
            """
            UPDATE job SET state = ?, reasonCode = ?, reasonMessage = ?, reasonUntil = ?, completedBytes = ?, totalBytes = ?,
            transferredBytes = ?, attempts = ?, result = ?, updatedAt = ?, finishedAt = ? WHERE id = ?
            """,
            [job.state.rawValue, job.reason?.code, job.reason?.message, job.reason?.until?.timeIntervalSince1970,
                job.progress.completedBytes, job.progress.totalBytes, job.progress.transferredBytes, job.attempts, result,
                job.updatedAt.timeIntervalSince1970, job.finishedAt?.timeIntervalSince1970, job.id])
    }

    private static func appendHistory(_ db: SQLiteConnection, id: Int64, _ entry: HistoryEntry) throws {
        try db.execute("INSERT INTO history (jobID, at, state, reason) VALUES (?, ?, ?, ?)", [id, entry.at.timeIntervalSince1970, entry.state, entry.reason])
    }

    // MARK: Reading

    /// Every job not finished, oldest first: what the queue holds in memory. A state this
    /// version does not know is among them, and refused (``storedJob(_:)``).
    func unfinished() throws(QueueError) -> [StoredJob] {
        try read("read the queue") { db in
            try db.rows("SELECT * FROM job WHERE NOT \(Self.isFinished) ORDER BY id").map(Self.storedJob)
        }
    }

    /// The finished jobs in `states` (final states only), oldest first.
    func finished(in states: Set<JobStatus>) throws(QueueError) -> [QueueJob] {
        let wanted = Self.finalStates.filter(states.contains)
        guard !wanted.isEmpty else { return [] }
        // The first term is the partial index's own condition (v4), so SQLite reads the index
        // of finished jobs instead of every row.
        return try read("read the finished jobs") { db in
            try db.rows("SELECT * FROM job WHERE \(Self.isFinished) AND state IN (\(Self.placeholders(wanted.count))) ORDER BY id", wanted.map(\.rawValue))
                .map { row in try Self.storedJob(row).job }
        }
    }

    /// The job with `id`, if there is one.
    func job(_ id: Int64) throws(QueueError) -> QueueJob? {
        try read("read job \(id)") { db in try db.rows("SELECT * FROM job WHERE id = ?", [id]).first.map { row in try Self.storedJob(row).job } }
    }

    /// Finished jobs per final state.
    func finishedCounts() throws(QueueError) -> [JobStatus: Int] {
        try read("count the finished jobs") { db in
            var counts: [JobStatus: Int] = [:]
            let rows = try db.rows("SELECT state, count(*) AS n FROM job WHERE \(Self.isFinished) GROUP BY state")
            for row in rows { counts[JobStatus(rawValue: try row.get("state")), default: 0] += try row.get("n", as: Int.self) }
            return counts
        }
    }

    static let finalStates = JobStatus.all.filter(\.isFinal)
    /// The finished jobs' condition, as the partial index `job_finished` (v4) spells it.
    static let isFinished = "state IN ('succeeded', 'failed', 'cancelled')"

    private static func placeholders(_ count: Int) -> String { Array(repeating: "?", count: count).joined(separator: ", ") }

    /// A job's history, oldest first.
    func history(of id: Int64) throws(QueueError) -> [HistoryEntry] {
        try read("read job \(id)'s history") { db in
            try db.rows("SELECT at, state, reason FROM history WHERE jobID = ? ORDER BY id", [id]).map { row throws(SQLiteError) in
                HistoryEntry(at: Date(timeIntervalSince1970: try row.get("at")), state: try row.get("state"), reason: try row.get("reason"))
            }
        }
    }

    /// `PRAGMA integrity_check`: "ok" for a sound database.
    func integrityCheck() throws(QueueError) -> String {
        try read("check the queue database") { db in String(sqliteValue: try db.value("PRAGMA integrity_check")) ?? "no answer" }
    }

    /// A trivial read: the database answers (the watchdog's check).
    func ping() -> Bool { (try? reader.sync { db in try db.value("SELECT 1") }) == .integer(1) }

    private static func storedJob(_ row: SQLiteRow) throws -> StoredJob {
        let id: Int64 = try row.get("id")
        let spec = try QueueJSON.decode(QueueJobSpec.self, from: Data(try row.get("spec", as: String.self).utf8))
        let resultText: String? = try row.get("result")
        let reasonCode: String? = try row.get("reasonCode")
        let until: Double? = try row.get("reasonUntil")
        let finished: Double? = try row.get("finishedAt")
        let state = JobStatus(rawValue: try row.get("state"))
        guard JobStatus.all.contains(state) else {
            throw QueueError.storage(
                "job \(id) is in state '\(state.rawValue.prefix(40))', which this version does not know (a newer version wrote it): refusing to run the queue")
        }
        let reason = try reasonCode.map { code throws(SQLiteError) in
            JobReason(code: code, message: try row.get("reasonMessage", as: String?.self) ?? code, until: until.map(Date.init(timeIntervalSince1970:)))
        }
        let job = QueueJob(
            id: id, spec: spec, state: state, reason: reason,
            progress: QueueProgress(
                completedBytes: try row.get("completedBytes"), totalBytes: try row.get("totalBytes"), transferredBytes: try row.get("transferredBytes")),
            attempts: try row.get("attempts"),
            result: try resultText.map { try QueueJSON.decode(QueueResult.self, from: Data($0.utf8)) },
            createdAt: Date(timeIntervalSince1970: try row.get("createdAt")), updatedAt: Date(timeIntervalSince1970: try row.get("updatedAt")),
            finishedAt: finished.map(Date.init(timeIntervalSince1970:)))
        return StoredJob(job: job, hasSecrets: try row.get("hasSecrets"))
    }

    // MARK: Errors

    private func read<T: Sendable>(_ doing: String, _ body: (SQLiteConnection) throws -> T) throws(QueueError) -> T {
        do { return try reader.sync(body) } catch { throw Self.queueError(error, doing: doing) }
    }

    static func json<T: Encodable>(_ value: T) throws(QueueError) -> String {
        do { return String(decoding: try QueueJSON.encode(value), as: UTF8.self) } catch { throw .storage("cannot encode: \(error)") }
    }

    static func queueError(_ error: any Error, doing: String) -> QueueError {
        if let error = error as? QueueError { return error }
        if let error = error as? SQLiteError {
            if error.isFull { return .storageFull("cannot \(doing): the state directory's file system is full") }
            return .storage("cannot \(doing): \(error.message)")
        }
        return .storage("cannot \(doing): \(error)")
    }
}

/// The database's versions, applied in order; each runs once (recorded where GRDB recorded them).
enum QueueMigrations {
    static var migrator: SQLiteMigrator {
        var migrator = SQLiteMigrator()
        migrator.register("v1: jobs and history", sql: """
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
        migrator.register("v2: data budgets", sql: """
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
        // An index on every job's state cost every add and every change two more pages of log,
        // copied again at each checkpoint (finished jobs have an index of their own: v4).
        migrator.register("v3: no index on a job's state", sql: "DROP INDEX IF EXISTS job_by_state")
        // Finished jobs are read from the database (the queue holds only unfinished ones): an
        // index of them alone, changed once per job (when it finishes), not at every change.
        migrator.register("v4: an index of finished jobs", sql: "CREATE INDEX job_finished ON job(id) WHERE \(QueueStore.isFinished)")
        return migrator
    }
}
