import ReachabilityCore
import Synchronization

/// One job's work: takes a host slot once allowed, runs the download, upload or body, counts the
/// bytes it moves on limited networks, and asks the gate to judge again when it learns the
/// size or uses up a size limit's budget.
final class JobRunner: Sendable {
    /// What the job knows about its bytes, across runs.
    struct Counters: Sendable {
        var remaining: Int64?
        var movedOnCellular: Int64 = 0
        var movedOnExpensive: Int64 = 0
        var receivedThisRun: Int64 = 0
        var progress = JobProgress()

        /// Takes the run's running total of bytes moved, counts the new ones against the limits
        /// of `network`, and returns how many were new.
        mutating func count(movedThisRun total: Int64, on network: TransferNetwork) -> Int64 {
            let moved = max(0, total - receivedThisRun)
            receivedThisRun = max(receivedThisRun, total)
            if network.status == .cellular && !network.isLocal { movedOnCellular += moved }
            if network.isExpensive && !network.isLocal { movedOnExpensive += moved }
            return moved
        }
    }

    let engine: TransferEngine
    let id: JobID
    let job: TransferJob
    /// A download's hold on its destination from the start: its ``Download`` (800 bytes and
    /// more, with its open directory) is made when it first runs, then kept across pauses.
    private let downloadClaim: DownloadClaim?
    private let preparedDownload = Mutex<Download?>(nil)
    private let hostKey: String
    let counters: Mutex<Counters>
    /// A command job's current attempt, and whether its user holds it.
    let command = Mutex<CommandState>(CommandState())

    struct CommandState: Sendable {
        var executor: CommandJobExecutor?
        var isHeld = false
        /// What the gate last said it waits for; nil while it allows the command.
        var waitingFor: TransferWaitReason?
    }

    init(engine: TransferEngine, id: JobID, job: TransferJob, downloadClaim: DownloadClaim?, initial: Counters) {
        self.engine = engine
        self.id = id
        self.job = job
        self.downloadClaim = downloadClaim
        hostKey = job.host ?? ""
        counters = Mutex(initial)
    }

    /// The job's ``Download``, made on first use under its claim; nil for other work. Throws
    /// when its destination can no longer be written (its directory moved, for one).
    func download() throws(TransferError) -> Download? {
        guard case .download(let request) = job.work, let downloadClaim else { return nil }
        if let made = preparedDownload.withLock({ $0 }) { return made }
        let made = try engine.downloader.prepare(request, claim: downloadClaim)
        return preparedDownload.withLock { prepared in
            if prepared == nil { prepared = made }
            return prepared
        }
    }

    /// The job finished: its download's file is free for another.
    func releaseClaim() { downloadClaim?.release() }

    func transfer(updating transfer: Transfer) -> Transfer {
        counters.withLock { counters in
            Transfer(
                direction: job.direction, expectedBytes: counters.remaining, priority: job.priority,
                movedOnCellular: counters.movedOnCellular, movedOnExpensive: counters.movedOnExpensive
            )
        }
    }

    func body(_ run: GateRun) async throws -> JobOutput {
        // Shown as queued only once in line, so a slot freed after that goes by priority to it.
        try await engine.slots.acquire(hostKey, priority: job.priority) { engine.update(id, state: .queued) }
        defer { engine.slots.release(hostKey) }
        counters.withLock { $0.receivedThisRun = 0 }
        engine.update(id, state: .running, network: run.network)
        switch job.work {
        case .download:
            guard let download = try download() else { return .none }
            return .download(try await runDownload(download, run))
        case .upload(let request):
            return .upload(try await runUpload(request, run))
        case .body(_, _, let work):
            try await work(JobContext(run: run, reporter: { [weak self] progress in self?.account(progress, on: run.network) }))
            return .none
        case .command:
            return .none  // run by runCommand, under gates of its own
        }
    }

    private func runDownload(_ download: Download, _ run: GateRun) async throws -> DownloadResult {
        var budget = run.byteBudget
        while true {
            let outcome = await attempt(download, run, budget: budget)
            switch outcome {
            case .success(let result):
                return result
            case .failure(let error) where error.kind == .byteLimitReached:
                // The budget is spent: the gate pauses the job (over the limit) unless it may go on.
                let now = transfer(updating: run.transfer)
                guard await run.rejudge(now) else { throw CancellationError() }
                budget = job.policy.byteBudget(on: run.network, for: now)
            case .failure(let error):
                throw error
            }
        }
    }

    private func attempt(_ download: Download, _ run: GateRun, budget: Int64?) async -> Result<DownloadResult, TransferError> {
        do {
            let result = try await download.run(
                byteLimit: budget,
                admit: { [weak self] remaining in
                    guard let self else { return false }
                    self.counters.withLock { $0.remaining = remaining }
                    return await run.rejudge(self.transfer(updating: run.transfer))
                },
                // The run's connections are those of the uplink it was judged on (none pooled
                // over a route the job's policy may not allow).
                uplink: run.network.interface?.name,
                progress: { [weak self] progress in self?.account(progress, on: run.network) }
            )
            return .success(result)
        } catch {
            return .failure(error)
        }
    }

    /// Counts a download's progress: bytes moved on the run's network, what remains.
    private func account(_ progress: DownloadProgress, on network: TransferNetwork) {
        let job = counters.withLock { counters -> JobProgress in
            let moved = counters.count(movedThisRun: progress.bytesReceivedThisRun, on: network)
            if let total = progress.totalBytes { counters.remaining = max(0, total - progress.bytesOnDisk) }
            counters.progress.completedBytes = progress.bytesOnDisk
            counters.progress.totalBytes = progress.totalBytes
            counters.progress.transferredBytes += moved
            counters.progress.refetchedBytes = progress.bytesRefetched
            return counters.progress
        }
        if let delay = progress.retryingAfter {
            engine.update(id, state: .paused(.retrying(after: delay, cause: progress.retryCause?.description ?? "a failed attempt")), progress: job)
        } else {
            engine.update(id, state: .running, progress: job, network: network)
        }
    }

    /// Counts a body's own report.
    private func account(_ progress: JobProgress, on network: TransferNetwork) {
        let job = counters.withLock { counters -> JobProgress in
            let moved = counters.count(movedThisRun: progress.transferredBytes, on: network)
            counters.remaining = progress.remainingBytes
            counters.progress.completedBytes = progress.completedBytes
            counters.progress.totalBytes = progress.totalBytes
            counters.progress.transferredBytes += moved
            return counters.progress
        }
        engine.update(id, state: .running, progress: job, network: network)
    }
}
