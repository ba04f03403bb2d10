import ReachabilityCore
import Reachability
import Synchronization

/// Owns transfer jobs: downloads, uploads, and any async body that moves data, each gated by its own
/// `TransferGate` on the route to its server, with a state, a reason and events. Modelled on
/// Android's DownloadManager: submit a job, watch its ``JobEvent``s, pause, resume or cancel it
/// by id. Host slots are taken only once the network allows a job, so a small allowed file
/// never waits behind big ones queued for Wi-Fi. This is the engine `reach get` and the
/// daemon run.
///
/// ```swift
/// let engine = TransferEngine(monitor: NetworkMonitor())
/// let id = try engine.submit(.download(DownloadRequest(url: url, destination: "/srv/update.img"),
///                                      policy: TransferPolicy(cellularSizeLimit: 50_000_000)))
/// let final = await engine.result(of: id)
/// ```
public final class TransferEngine: Sendable {
    /// Limits on running jobs.
    public struct Configuration: Sendable, Hashable {
        /// Jobs running at once against one host.
        public var perHost: Int
        /// Jobs running at once in all.
        public var maxRunning: Int

        /// Limits; by default 2 jobs at once per host and 8 in all.
        public init(perHost: Int = 2, maxRunning: Int = 8) {
            self.perHost = perHost
            self.maxRunning = maxRunning
        }
    }

    struct Record {
        var event: JobEvent
        /// Dropped when the job finishes, its download's claim on the destination let go first.
        var runner: JobRunner?
        var task: Task<Void, Never>?
        /// A transfer not yet allowed to start waits here, with no task (``TransferGateWait``).
        var wait: TransferGateWait?
        var waiters: [CheckedContinuation<JobEvent?, Never>] = []
    }

    let monitor: NetworkMonitor
    /// Runs the engine's downloads; its HTTP clients and retry policy serve the uploads too.
    public let downloader: Downloader
    /// Uploads on the downloader's HTTP clients and retry policy.
    public let uploader: Uploader
    let slots: HostSlots
    private let makeGate: @Sendable (TransferPolicy, String?) -> TransferGate
    /// Transfers judged alike share a gate.
    private let gates = GateCache()
    /// Each record out of line: 10,000 records of 608 bytes moved whole on every growth of the
    /// dictionary, stalling the take-up that crossed it.
    private let records = Mutex<[JobID: OutOfLine<Record>]>([:])
    /// The command jobs among them, so that a gate event of a transfer costs no record copy.
    private let commandIDs = Mutex<Set<JobID>>([])
    private let nextID = Atomic<Int64>(0)
    private let hub = EventHub()
    /// Set by ``shutdown()``: nothing is submitted or started after it.
    private let isShutDown = Atomic<Bool>(false)

    /// An engine over `monitor`, downloading with `downloader` (by default its own, with the
    /// environment's proxies).
    public convenience init(monitor: NetworkMonitor, downloader: Downloader = Downloader(), configuration: Configuration = Configuration()) {
        self.init(monitor: monitor, downloader: downloader, configuration: configuration, clock: ContinuousClock())
    }

    /// An engine whose gates settle on `clock` (a test clock in tests).
    public init<C: Clock>(monitor: NetworkMonitor, downloader: Downloader, configuration: Configuration, clock: C) where C.Duration == Duration {
        self.monitor = monitor
        self.downloader = downloader
        uploader = Uploader(clients: downloader.clients, retryPolicy: downloader.retryPolicy)
        slots = HostSlots(perHost: configuration.perHost, total: configuration.maxRunning)
        makeGate = { policy, host in TransferGate(monitor: monitor, policy: policy, destination: host, clock: clock) }
    }

    /// True once ``shutdown()`` has begun: nothing is submitted or started after it.
    public var hasShutDown: Bool { isShutDown.load(ordering: .acquiring) }

    /// Every event of every job from now on, for as long as the feed is kept: every state change
    /// in order, progress coalesced when the consumer is behind (``JobEventFeed``). The feed
    /// ends after ``shutdown()``, once its consumer has taken what it holds.
    public func events() -> JobEventFeed { hub.subscribe() }

    /// Adds `job` and starts judging it; returns its id.
    /// - Throws: ``TransferError`` for a job that cannot run at all (bad URL, a destination
    ///   that is not a regular file, another download into the same file, an upload's file
    ///   that is missing or not a regular file), before any traffic.
    @discardableResult
    public func submit(_ job: TransferJob) throws(TransferError) -> JobID {
        let id = JobID(nextID.wrappingAdd(1, ordering: .relaxed).newValue)
        try submit(job, id: id)
        return id
    }

    /// Adds `job` under `id` (an id the caller keeps, such as a database row's).
    public func submit(_ job: TransferJob, id: JobID) throws(TransferError) {
        guard !isShutDown.load(ordering: .acquiring) else {
            throw TransferError(.invalidRequest, url: "", detail: "the engine is shut down")
        }
        // A second job under one id would orphan the first (still running, its waiters lost).
        guard records.withLock({ $0[id] == nil }) else {
            throw TransferError(.invalidRequest, url: "", detail: "a job with id \(id) exists already")
        }
        var claim: DownloadClaim?
        var counters = JobRunner.Counters()
        switch job.work {
        case .download(let request):
            let prepared = try downloader.prepare(request)
            // The size from the part metadata, when an earlier run left one.
            let known = prepared.knownProgress()
            counters.remaining = known.remainingBytes
            counters.progress = known
            // It may wait long, among thousands: only its claim on the file is kept, and the
            // download made again (in the directory checked now) when it runs.
            claim = prepared.claim
        case .upload(let request):
            let estimate = try Uploader.estimate(request)
            counters.remaining = estimate.remaining
            counters.progress = JobProgress(completedBytes: estimate.size - estimate.remaining, totalBytes: estimate.size)
        case .body(_, let expectedBytes, _):
            counters.remaining = expectedBytes
            counters.progress.totalBytes = expectedBytes
        case .command:
            break
        }
        let runner = JobRunner(engine: self, id: id, job: job, downloadClaim: claim, initial: counters)
        let event = JobEvent(id: id, state: .queued, progress: counters.progress)
        if case .command = job.work { commandIDs.withLock { _ = $0.insert(id) } }
        records.withLock { records in
            records[id] = OutOfLine(Record(event: event, runner: runner))
            hub.publish(event)
        }
        start(id)
    }

    /// The job's latest event (state and progress); nil for an unknown id.
    public func status(of id: JobID) -> JobEvent? { records.withLock { $0[id]?.value.event } }

    /// Every job's latest event, by id.
    public func jobs() -> [JobEvent] { records.withLock { $0.values.map(\.value.event) }.sorted { $0.id < $1.id } }

    /// Waits until the job is finished (succeeded, failed or cancelled), or stopped by
    /// ``shutdown()``, and returns its last event; nil for an unknown id.
    public func result(of id: JobID) async -> JobEvent? {
        await withCheckedContinuation { (continuation: CheckedContinuation<JobEvent?, Never>) in
            let ready = records.withLock { records -> JobEvent?? in
                guard let index = records.index(forKey: id) else { return .some(nil) }
                return inPlace(&records.values[index].value) { record -> JobEvent?? in
                    if record.event.state.isFinal || record.event.state == .paused(.shutdown) { return .some(record.event) }
                    record.waiters.append(continuation)
                    return nil
                }
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    /// Stops the job, keeping what it did (a download's partial file); state `paused(byUser)`.
    /// False for an unknown or finished job.
    /// A command job's command is suspended instead (SIGSTOP; terminated with
    /// ``CommandExecutor/Options/OnDisallow/terminate``) and its job keeps its place.
    @discardableResult
    public func pause(_ id: JobID) async -> Bool {
        if let runner = commandRunner(id) {
            await runner.holdCommand()
            update(id, state: .paused(.byUser))
            return true
        }
        guard await stopRunner(id) else { return false }
        update(id, state: .paused(.byUser))
        return true
    }

    /// The runner of an unfinished command job.
    private func commandRunner(_ id: JobID) -> JobRunner? {
        guard commandIDs.withLock({ $0.contains(id) }) else { return nil }
        return records.withLock { records in
            guard let record = records[id]?.value, !record.event.state.isFinal, let runner = record.runner, case .command = runner.job.work else { return nil }
            return runner
        }
    }

    /// Resumes a job paused by ``pause(_:)``. False for an unknown job or one not paused by the user.
    @discardableResult
    public func resume(_ id: JobID) async -> Bool {
        if let runner = commandRunner(id) {
            guard status(of: id)?.state == .paused(.byUser) else { return false }
            update(id, state: runner.command.withLock { $0.waitingFor }.map(JobState.waiting) ?? .queued)
            await runner.releaseCommand()
            return true
        }
        let paused = records.withLock { records in
            guard let record = records[id]?.value, case .paused(let reason) = record.event.state, reason == .byUser else { return false }
            return record.task == nil && record.wait == nil
        }
        guard paused else { return false }
        update(id, state: .queued)
        start(id)
        return true
    }

    /// Stops the job for good and removes what it left (a download's partial file).
    @discardableResult
    public func cancel(_ id: JobID) async -> Bool {
        guard await stopRunner(id) else { return false }
        (try? records.withLock { $0[id]?.value.runner }?.download())??.discardPartial()
        finish(id, state: .cancelled)
        return true
    }

    /// Cancels the job's runner, if it has one, and waits for it to end; false for an unknown
    /// or finished job.
    private func stopRunner(_ id: JobID) async -> Bool {
        guard let (task, wait) = records.withLock({ records -> (Task<Void, Never>?, TransferGateWait?)? in
            guard let index = records.index(forKey: id), !records.values[index].value.event.state.isFinal else { return nil }
            return inPlace(&records.values[index].value) { record in
                defer { (record.task, record.wait) = (nil, nil) }
                return (record.task, record.wait)
            }
        }) else { return false }
        wait?.cancel()
        task?.cancel()
        await task?.value
        return true
    }

    /// Drops a finished job's last event: ``status(of:)`` and ``result(of:)`` no longer know
    /// it. For an owner that keeps jobs elsewhere (the daemon's queue, in its database), so
    /// that finished jobs cost the engine nothing. An unfinished job is kept.
    public func forget(_ id: JobID) {
        records.withLock { records in
            guard let record = records[id]?.value, record.event.state.isFinal, record.waiters.isEmpty else { return }
            records[id] = nil
        }
        commandIDs.withLock { _ = $0.remove(id) }
    }

    /// Stops every job (as a pause: partial files kept, a download's progress recorded in its
    /// sidecar) and waits for them. Unfinished jobs end in `paused(.shutdown)`, and whoever
    /// waits in ``result(of:)`` gets that event; nothing can be submitted or resumed afterwards.
    public func shutdown() async {
        isShutDown.store(true, ordering: .releasing)
        let (tasks, waits) = records.withLock { records in
            // The keys copied first: changing the records while a view of them lives would copy them all.
            var (tasks, waits): ([Task<Void, Never>], [TransferGateWait]) = ([], [])
            for id in Array(records.keys) {
                if let task = records[id]?.value.task { tasks.append(task) }
                if let wait = records[id]?.value.wait { waits.append(wait) }
                records[id]?.value.task = nil
                records[id]?.value.wait = nil
            }
            return (tasks, waits)
        }
        // Outside the lock: a wait's network callback takes it.
        for wait in waits { wait.cancel() }
        for task in tasks { task.cancel() }
        for task in tasks { await task.value }
        let stopped = records.withLock { records in
            Array(records.keys).compactMap { id -> (JobEvent, [CheckedContinuation<JobEvent?, Never>])? in
                guard let index = records.index(forKey: id) else { return nil }
                return inPlace(&records.values[index].value) { record in
                    guard !record.event.state.isFinal else { return nil }
                    record.event.state = .paused(.shutdown)
                    record.event.network = nil
                    let waiters = record.waiters
                    record.waiters = []
                    hub.publish(record.event)
                    return (record.event, waiters)
                }
            }
        }
        for (event, waiters) in stopped {
            for waiter in waiters { waiter.resume(returning: event) }
        }
        hub.finish()
    }

    // MARK: Running

    /// Starts judging the job. A command runs under gates of its own, in a task; a transfer
    /// first waits without one (``TransferGateWait``) until a network lets it start.
    private func start(_ id: JobID) {
        guard !isShutDown.load(ordering: .acquiring), let record = records.withLock({ $0[id]?.value }), let runner = record.runner else { return }
        if case .command(let request) = runner.job.work {
            let (makeGate, policy) = (self.makeGate, runner.job.policy)
            let task = Task { [self] in
                await run(id) {
                    let termination = try await runner.runCommand(request) { makeGate(policy, nil) }
                    return .command(termination)
                }
            }
            records.withLock { records in
                if records[id]?.value.event.state.isFinal == false { records[id]?.value.task = task }
            }
            return
        }
        let (policy, host) = (runner.job.policy, runner.job.host)
        let gate = gates.gate(policy: policy, host: host) { makeGate(policy, host) }
        let wait = gate.prepareWait(runner.transfer(updating: Transfer())) { [self] event in gateEvent(id, event) }
        let kept = records.withLock { records -> Bool in
            guard records[id]?.value.event.state.isFinal == false, records[id]?.value.task == nil else { return false }
            records[id]?.value.wait = wait
            return true
        }
        guard kept else { return }
        wait.begin { [self] wait in drive(id, runner: runner, gate: gate, after: wait) }
    }

    /// The job's wait is over: its gate drives it from here, in a task of its own (unless it
    /// was stopped meanwhile).
    private func drive(_ id: JobID, runner: JobRunner, gate: TransferGate, after wait: TransferGateWait) {
        records.withLock { records in
            guard let index = records.index(forKey: id) else { return }
            inPlace(&records.values[index].value) { record in
                guard !record.event.state.isFinal, record.wait === wait else { return }
                record.wait = nil
                record.task = Task { [self] in
                    await run(id) {
                        let executor = JobExecutor(runner: runner)
                        return try await gate.drive(executor, runner.transfer(updating: Transfer()), after: wait) { [self] event in
                            gateEvent(id, event)
                        }
                    }
                }
            }
        }
    }

    /// Runs the job's work and records how it ended.
    private func run(_ id: JobID, _ work: () async throws -> JobOutput) async {
        do {
            finish(id, state: .succeeded, output: try await work())
        } catch is CancellationError {
            // Paused or cancelled by the user, or shut down: they set the state.
        } catch let error as TransferError where error.kind == .cancelled && Task.isCancelled {
            // The same, seen from inside a download.
        } catch let error as TransferError {
            finish(id, state: .failed(error))
        } catch {
            finish(id, state: .failed(TransferError(.io, url: "", detail: "\(error)")))
        }
    }

    func gateEvent(_ id: JobID, _ event: TransferGate.Event) {
        // A command's gate goes on judging while its user holds it: the hold is what shows,
        // and the network's verdict is kept for when the user lets go.
        if let runner = commandRunner(id) {
            let held = runner.command.withLock { state -> Bool in
                switch event {
                case .waiting(let reason), .paused(let reason): state.waitingFor = reason
                case .started, .resumed: state.waitingFor = nil
                }
                return state.isHeld
            }
            if held { return }
        }
        switch event {
        case .waiting(let reason), .paused(let reason): update(id, state: .waiting(reason))
        case .started, .resumed: break  // the runner reports queued/running
        }
    }

    /// Records a new state (and progress, network) and publishes it; ignored once final.
    /// Published under the lock, so one job's events reach subscribers in the order recorded.
    func update(_ id: JobID, state: JobState, progress: JobProgress? = nil, network: TransferNetwork? = nil) {
        records.withLock { records in
            // In place (no copy of the record), under the lock.
            guard let index = records.index(forKey: id) else { return }
            inPlace(&records.values[index].value.event) { event in
                guard !event.state.isFinal else { return }
                if event.state == state && progress == nil && network == event.network { return }
                event.state = state
                if let progress { event.progress = progress }
                event.network = state == .running ? (network ?? event.network) : nil
                hub.publish(event)
            }
        }
    }

    private func finish(_ id: JobID, state: JobState, output: JobOutput = .none) {
        let (event, waiters) = records.withLock { records -> (JobEvent?, [CheckedContinuation<JobEvent?, Never>]) in
            guard let index = records.index(forKey: id), !records.values[index].value.event.state.isFinal else { return (nil, []) }
            return inPlace(&records.values[index].value) { record in
                record.event.state = state
                record.event.network = nil
                switch output {
                case .download(let result):
                    record.event.download = result
                    record.event.progress.completedBytes = result.bytes
                    record.event.progress.totalBytes = result.bytes
                case .upload(let result):
                    record.event.upload = result
                    record.event.progress.completedBytes = result.bytes
                    record.event.progress.totalBytes = result.bytes
                case .command(let termination):
                    record.event.command = termination
                case .none:
                    break
                }
                let waiters = record.waiters
                record.waiters = []
                record.task = nil
                // Only the last event stays (for result(of:)): the runner, its download and the
                // download's claim on the destination go, so a later job may write there. The
                // claim is let go here, before anyone hears of the end: the task that ran the
                // job may hold the runner a moment longer.
                record.runner?.releaseClaim()
                record.runner = nil
                hub.publish(record.event)
                return (record.event, waiters)
            }
        }
        guard let event else { return }
        for waiter in waiters { waiter.resume(returning: event) }
    }
}
