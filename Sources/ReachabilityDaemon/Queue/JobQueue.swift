import FoundationEssentials
public import Reachability
import ReachabilityCore
public import ReachabilityTransfers
import Synchronization

/// The daemon's persistent, network-gated job queue: downloads and uploads run by a
/// ``TransferEngine``, commands run under a ``TransferGate``, every job and its history in an
/// SQLite database. A job is committed to disk before ``add(_:workingDirectory:)`` returns;
/// after a crash, ``start()`` takes every unfinished job up again where it stopped (a download
/// from its partial file), and a finished job never runs again. Only unfinished jobs are held in
/// memory: a finished one leaves it once its final state is committed, and lists and look-ups
/// read it from the database.
///
/// ```swift
/// let queue = try JobQueue(configuration: .init(stateDirectory: "/var/lib/reach"), monitor: NetworkMonitor())
/// try queue.start()
/// let job = try await queue.add(QueueJobSpec(kind: .download, download: DownloadSpec(url: url, destination: "/srv/update.img"),
///                                      constraints: QueueConstraints(when: "unmetered")), workingDirectory: nil)
/// ```
public final class JobQueue: Sendable {
    /// Where the queue keeps its state, and its limits.
    public struct Configuration: Sendable, Hashable {
        /// The daemon's own directory: `queue.sqlite`, upload resume records, command logs.
        public var stateDirectory: String
        /// Transfers at once against one host.
        public var perHost: Int
        /// Transfers at once in all.
        public var maxRunning: Int
        /// A failed command's first wait before it runs again (doubled per failure, at most an hour).
        public var commandRetryDelay: Duration
        /// The most a command job's log file holds; past it the file becomes `job-ID.log.1`
        /// (replacing an older one) and a new one starts.
        public var commandLogLimit: Int64

        /// A configuration with the engine's defaults (2 per host, 8 in all), a 30 s retry delay
        /// and 10 MiB command logs.
        public init(
            stateDirectory: String, perHost: Int = 2, maxRunning: Int = 8, commandRetryDelay: Duration = .seconds(30), commandLogLimit: Int64 = 10 << 20
        ) {
            self.stateDirectory = stateDirectory
            self.perHost = perHost
            self.maxRunning = maxRunning
            self.commandRetryDelay = commandRetryDelay
            self.commandLogLimit = commandLogLimit
        }
    }

    struct State: Sendable {
        /// The unfinished jobs, and finished ones until their final state is committed.
        var entries: [Int64: OutOfLine<QueueEntry>] = [:]
        /// Finished jobs per final state that ``entries`` no longer holds.
        var finishedCounts: [JobStatus: Int] = [:]
        var subscribers: [Int: AsyncStream<QueueJob>.Continuation] = [:]
        var nextSubscriber = 0
        var isStopping = false
        var consumer: Task<Void, Never>?
        /// Added jobs the engine has not taken up yet (``takeUp(_:)``).
        var newJobs: [Int64] = []
        var isTakeUpArmed = false
        /// ``start()`` has put every stored job in ``entries``: until then a list or a look-up
        /// would answer from an empty or partial queue.
        var isLoaded = false
        /// The files downloads in the engine write, and by which job.
        var destinations: [DestinationKey: Int64] = [:]
    }

    /// The queue's settings.
    public let configuration: Configuration
    let store: QueueStore
    /// Every change goes to the store through it, in order, batched.
    let writer: QueueWriter
    let engine: TransferEngine
    let monitor: NetworkMonitor
    /// The command processes running, recorded so that a restart can end what a crash left.
    let children: CommandChildren
    let observer: (any QueueObserver)?
    let state = Mutex(State())
    private let engineEvents: JobEventFeed

    /// Opens the queue database in the configuration's state directory (which must exist, owned
    /// by this user; see ``StateDirectory``). Nothing runs before ``start()``.
    public init(configuration: Configuration, monitor: NetworkMonitor, downloader: Downloader = Downloader(), observer: (any QueueObserver)? = nil)
        throws(QueueError)
    {
        self.configuration = configuration
        self.monitor = monitor
        self.observer = observer
        store = try QueueStore(directory: configuration.stateDirectory)
        writer = QueueWriter(store: store)
        children = CommandChildren(stateDirectory: configuration.stateDirectory)
        engine = TransferEngine(
            monitor: monitor, downloader: downloader, configuration: .init(perHost: configuration.perHost, maxRunning: configuration.maxRunning))
        engineEvents = engine.events()
    }

    /// Events taken at once below which the queue, taking batches back to back (less than
    /// ``eventGathering`` apart), waits ``eventGathering`` for more.
    static let eventBurst = 64
    /// How long the queue lets a small batch of engine events grow before taking the next.
    static let eventGathering = Duration.microseconds(250)

    /// The database file.
    public var databasePath: String { store.path }

    /// Loads the queue, ends the commands a crashed daemon left running, and takes up every
    /// unfinished job; call once.
    public func start() throws(QueueError) {
        let stored = try store.unfinished()
        let finishedCounts = try store.finishedCounts()
        for (job, pid) in children.endLeftovers() {
            QueueLog.notice("ended the command of job \(job) (process group \(pid)) that the previous daemon left running")
        }
        let consumer = Task { [self] in
            var lastTaken = ContinuousClock.now
            while let batch = await engineEvents.nextBatch() {
                let taken = ContinuousClock.now
                for event in batch { apply(event) }
                // A burst (a path change re-judging thousands of waiting jobs) arrives one event
                // at a time: waking for each one cost more than applying it. Batches coming
                // back to back are a burst; one every few milliseconds (adds) is not.
                if batch.count < Self.eventBurst, taken - lastTaken < Self.eventGathering {
                    try? await Task.sleep(for: Self.eventGathering)
                }
                lastTaken = taken
            }
        }
        state.withLock { state in
            state.consumer = consumer
            state.finishedCounts = finishedCounts
        }
        for item in stored { restore(item) }
        state.withLock { $0.isLoaded = true }
    }

    /// Whether ``start()`` has loaded every stored job. Before that the queue cannot say
    /// truthfully which jobs exist: the control API answers 503 (`starting`, `Retry-After`).
    public var isLoaded: Bool { state.withLock { $0.isLoaded } }

    // MARK: Jobs

    /// Checks `spec`, resolves its relative paths against `workingDirectory` (the client's),
    /// records it (committed with whatever else is being written) and schedules it; returns the
    /// job as stored. With `client`, every path of the job must be the same file for the daemon
    /// as for the client (``ClientFileView``).
    /// - Throws: ``QueueError`` for an invalid job, or when it could not be recorded (nothing
    ///   of it is kept then).
    @discardableResult
    public func add(_ spec: QueueJobSpec, workingDirectory: String?, client: ClientFileView? = nil) async throws(QueueError) -> QueueJob {
        guard !state.withLock({ $0.isStopping }) else { throw .unavailable("the daemon is stopping") }
        let accepted = try spec.accepted(workingDirectory: workingDirectory)
        if let client { try accepted.spec.checkVisible(to: client) }
        let now = Date()
        let write = QueueStore.Write.insert(
            spec: try QueueStore.json(accepted.stored), hasSecrets: accepted.hasSecrets, state: .pending, reason: nil, at: now)
        guard let id = try await writer.commit(write) else { throw .storage("the database gave the new job no id") }
        let job = QueueJob(id: id, spec: accepted.stored, state: .pending, reason: nil, createdAt: now, updatedAt: now)
        state.withLock { state in
            state.entries[job.id] = OutOfLine(QueueEntry(job: job, runSpec: accepted.spec))
            // Under the lock, as every later change of the job is told.
            for subscriber in state.subscribers.values { subscriber.yield(job) }
        }
        // A job held until `notBefore` is held now (a timer, cheap), so the answer's next list
        // shows it held; the engine takes any other job up after the answer, with the jobs added
        // just before and after it: the client waits for the commit only.
        if let notBefore = accepted.spec.notBefore, notBefore > now { schedule(job.id) } else { takeUp(job.id) }
        return job
    }

    /// Every job, oldest first; with `states`, only those. Finished jobs are read from the
    /// database.
    /// - Throws: ``QueueError`` when the database cannot be read.
    public func list(states: Set<JobStatus>? = nil) throws(QueueError) -> [QueueJob] {
        let held = state.withLock { state in state.entries.values.map(\.value.job) }
        var jobs = Dictionary(held.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        for job in try finishedInStore(states) { jobs[job.id] = job }
        return jobs.values.filter { states?.contains($0.state) ?? true }.sorted { $0.id < $1.id }
    }

    /// The finished jobs of `states` (every state when nil) the database holds. Read after the
    /// memory's: a job that finished between the two reads is in one of them, and the
    /// database's row, final, is the newer.
    private func finishedInStore(_ states: Set<JobStatus>?) throws(QueueError) -> [QueueJob] {
        let wanted = states ?? Set(JobStatus.all)
        // Every finished job memory no longer holds is counted: none of these states, no read.
        let stored = state.withLock { state in QueueStore.finalStates.contains { wanted.contains($0) && state.finishedCounts[$0, default: 0] > 0 } }
        guard stored else { return [] }
        return try store.finished(in: wanted)
    }

    /// ``list(states:)`` as the JSON of a ``QueueJobList`` (or, for the summary view, of a
    /// ``QueueJobSummaryList``). Each job's JSON is kept until it changes, so listing 1,000 idle
    /// jobs encodes none of them again.
    /// - Throws: ``QueueError`` when the database cannot be read.
    public func listJSON(states: Set<JobStatus>? = nil, view: QueueListView = .full) throws(QueueError) -> [UInt8] {
        if view == .summary { return try listJSON(states: states, cache: \.encodedSummary) { try QueueJSON.encode($0.summary) } }
        return try listJSON(states: states, cache: \.encoded) { try QueueJSON.encode($0) }
    }

    /// The list, each job encoded by `encode` or taken from its entry's `cache`. Under the lock
    /// only small items are gathered (an id and the cached bytes, or the job to encode).
    /// Finished jobs read from the database are encoded each time (nothing of them is kept).
    private func listJSON(
        states: Set<JobStatus>?, cache: WritableKeyPath<QueueEntry, [UInt8]?>, encode: (QueueJob) throws -> Data
    ) throws(QueueError) -> [UInt8] {
        enum Item { case cached([UInt8]), fresh(QueueJob, version: Int), stored(QueueJob) }
        var items = state.withLock { state -> [(id: Int64, item: Item)] in
            var items: [(id: Int64, item: Item)] = []
            items.reserveCapacity(state.entries.count)
            // Each entry read where it is: a copy of a whole entry retains everything it holds.
            for (id, entry) in state.entries where states?.contains(entry.value.job.state) ?? true {
                if let encoded = entry.value[keyPath: cache] {
                    items.append((id, .cached(encoded)))
                } else {
                    items.append((id, .fresh(entry.value.job, version: entry.value.version)))
                }
            }
            return items
        }
        let stored = try finishedInStore(states)
        if !stored.isEmpty {
            let storedIDs = Set(stored.map(\.id))
            items.removeAll { storedIDs.contains($0.id) }
            items += stored.map { ($0.id, .stored($0)) }
        }
        items.sort { $0.id < $1.id }
        var fresh: [(id: Int64, version: Int, json: [UInt8])] = []
        var body = Array("{\"jobs\":[".utf8)
        body.reserveCapacity(items.count * 400 + 16)
        for (index, (id, item)) in items.enumerated() {
            let part: [UInt8]
            switch item {
            case .cached(let encoded):
                part = encoded
            case .fresh(let job, let version):
                guard let data = try? encode(job) else { continue }
                part = Array(data)
                fresh.append((id, version, part))
            case .stored(let job):
                guard let data = try? encode(job) else { continue }
                part = Array(data)
            }
            if index > 0 && body.last != 0x5B { body.append(0x2C) }
            body += part
        }
        body += Array("]}".utf8)
        if !fresh.isEmpty {
            state.withLock { state in
                for item in fresh where state.entries[item.id]?.value.version == item.version { state.entries[item.id]?.value[keyPath: cache] = item.json }
            }
        }
        return body
    }

    /// The job with `id` (a finished one read from the database).
    public func job(_ id: Int64) throws(QueueError) -> QueueJob {
        if let job = state.withLock({ $0.entries[id]?.value.job }) { return job }
        // Not held: finished (committed before it left memory), or unknown.
        guard let job = try store.job(id) else { throw .notFound(id) }
        return job
    }

    /// The job's history: each state it went through, when and why.
    public func history(of id: Int64) throws(QueueError) -> [QueueHistoryEntry] {
        _ = try job(id)
        return try store.history(of: id).map { QueueHistoryEntry(at: $0.at, state: $0.state, reason: $0.reason) }
    }

    /// The job, its history and (for a command) its log file.
    public func detail(_ id: Int64) throws(QueueError) -> QueueJobDetail {
        let job = try job(id)
        return QueueJobDetail(job: job, history: try history(of: id), logPath: job.spec.kind == .command ? logPath(of: id) : nil)
    }

    /// Every change of every job from now on (state, reason, progress), in order, while
    /// iterated. Nothing is dropped: a consumer must keep up (the control API's event stream
    /// moves each change at once into a per-client buffer with a bound of its own).
    public func events() -> AsyncStream<QueueJob> {
        let (stream, continuation) = AsyncStream.makeStream(of: QueueJob.self, bufferingPolicy: .unbounded)
        let key = state.withLock { state in
            state.nextSubscriber += 1
            state.subscribers[state.nextSubscriber] = continuation
            return state.nextSubscriber
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.subscribers.removeValue(forKey: key) }
        }
        return stream
    }

    /// Jobs per state, every state present.
    public func counts() -> [JobStatus: Int] {
        state.withLock { state in
            var counts = Dictionary(uniqueKeysWithValues: JobStatus.all.map { ($0, 0) })
            for entry in state.entries.values { counts[entry.value.job.state, default: 0] += 1 }
            for (status, count) in state.finishedCounts { counts[status, default: 0] += count }
            return counts
        }
    }

    /// `PRAGMA integrity_check` of the queue database: "ok" when sound.
    public func integrityCheck() throws(QueueError) -> String { try store.integrityCheck() }

    /// The database answers a read (for the watchdog).
    public func isResponsive() -> Bool { store.ping() }

    // MARK: Stopping

    /// How long running jobs get to stop at shutdown before their commands are killed.
    static let stopGrace: Duration = .seconds(5)

    /// Stops every job as a pause (downloads checkpoint their partial files, commands are
    /// terminated, and killed if they still run after 5 s), records each job's progress, and
    /// refuses new jobs. Unfinished jobs stay unfinished in the database: the next start takes
    /// them up.
    public func shutdown() async {
        let tasks = state.withLock { state -> [Task<Void, Never>] in
            state.isStopping = true
            return state.entries.values.compactMap(\.value.task)
        }
        for task in tasks { task.cancel() }
        // A command that ignores SIGTERM gets its own kill-after, but never past the daemon's
        // stop grace: systemd's TimeoutStopSec is 10 s, and the queue is still to be written.
        let engine = self.engine
        let consumer = state.withLock { $0.consumer }
        let stopping = Task {
            for task in tasks { await task.value }
            // The engine ends its event feed once its jobs are stopped; the consumer takes every
            // event left in it before it returns.
            await engine.shutdown()
            await consumer?.value
        }
        // (Awaiting a task's value does not end with cancellation: a timer of its own, not a
        // task group, bounds the wait.)
        let children = self.children
        let deadline = Task {
            try? await Task.sleep(for: Self.stopGrace)
            if !Task.isCancelled { children.killRunning() }
        }
        await stopping.value
        deadline.cancel()
        // Every command is ended: no record is left for the next start to act on.
        for id in state.withLock({ state in state.entries.values.filter { $0.value.job.spec.kind == .command }.map(\.value.job.id) }) { children.forget(job: id) }
        let unfinished = state.withLock { state in state.entries.values.filter { !$0.value.job.state.isFinal }.map(\.value) }
        for entry in unfinished { writer.enqueue(.save(entry.job, history: nil)) }
        if !(await writer.drain(timeout: .seconds(3))) {
            QueueLog.storageFailure(.storage("\(writer.backlog) changes could not be recorded before stopping (is the state directory's file system full?)"))
        }
        let subscribers = state.withLock { state in
            defer { state.subscribers = [:] }
            return Array(state.subscribers.values)
        }
        for subscriber in subscribers { subscriber.finish() }
        engine.downloader.shutdown()
    }
}
