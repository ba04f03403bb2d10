import Foundation
import Reachability
import ReachabilityCore
import ReachabilityTransfers
import Synchronization

extension JobQueue {
    /// Takes a stored job up again after a start: unfinished jobs are scheduled (those that
    /// were running are marked interrupted in their history); a job whose credentials were
    /// never stored cannot run again and fails, saying so.
    func restore(_ stored: QueueStore.StoredJob) {
        var entry = QueueEntry(job: stored.job, runSpec: stored.hasSecrets ? nil : stored.job.spec)
        entry.restored = true
        entry.transferredBase = stored.job.progress.transferredBytes
        let id = stored.job.id
        state.withLock { $0.entries[id] = entry }
        guard !stored.job.state.isFinal else { return }
        if stored.hasSecrets {
            fail(id, QueueReason(code: "credentialsLost", message: "its credentials were kept in memory only (never on disk) and the daemon restarted: add the job again"))
            return
        }
        if entry.isUserPaused { return }
        if stored.job.state == .running || stored.job.state == .pending {
            _ = change(id, history: true, note: "interrupted (the daemon stopped); taken up again") { job in
                job.state = .pending
                job.reason = nil
                job.network = nil
            }
        }
        schedule(id)
    }

    /// Starts the job, or holds it until its `notBefore` time.
    func schedule(_ id: Int64) {
        guard let entry = state.withLock({ $0.entries[id] }), !entry.job.state.isFinal, !entry.isUserPaused,
            !state.withLock({ $0.isStopping }), let spec = entry.runSpec
        else { return }
        if let notBefore = spec.notBefore, notBefore > Date() {
            hold(id, until: notBefore)
            return
        }
        if spec.kind == .command {
            startCommand(id, spec: spec, previousAttempts: entry.job.attempts)
        } else {
            submit(id, spec: spec, restored: entry.restored)
        }
    }

    private func hold(_ id: Int64, until date: Date) {
        _ = change(id, history: true) { job in
            job.state = .paused
            job.reason = .notBefore(date)
        }
        let timer = Task { [self] in
            let delay = date.timeIntervalSinceNow
            if delay > 0 { try? await Task.sleep(for: .milliseconds(Int64(min(delay, 1e9) * 1000) + 1)) }
            guard !Task.isCancelled else { return }
            state.withLock { $0.entries[id]?.task = nil }
            schedule(id)
        }
        state.withLock { $0.entries[id]?.task = timer }
    }

    private func submit(_ id: Int64, spec: QueueJobSpec, restored: Bool) {
        guard let transfer = spec.transferJob(uploadStateDirectory: uploadStateDirectory) else {
            fail(id, QueueReason(code: "invalidJob", message: "the job has no \(spec.kind) payload"))
            return
        }
        if restored, let adopted = adoptFinishedDownload(id, spec: spec) {
            _ = change(id, history: true, finish: true) { job in
                job.state = .succeeded
                job.reason = nil
                job.result = adopted
                job.progress.completedBytes = adopted.bytes ?? job.progress.completedBytes
            }
            return
        }
        state.withLock { state in
            guard var entry = state.entries[id] else { return }
            entry.inEngine = true
            entry.engineTransferred = 0
            entry.transferredBase = entry.job.progress.transferredBytes
            state.entries[id] = entry
        }
        _ = change(id, history: false) { $0.attempts += 1 }
        do {
            try engine.submit(transfer, id: JobID(id))
        } catch {
            state.withLock { $0.entries[id]?.inEngine = false }
            fail(id, QueueReason(code: error.kind.description, message: error.description))
        }
    }

    /// A download whose file was renamed into place just before the daemon died (after the
    /// last checkpoint): the destination is a regular file of the known size, newer than the
    /// job, with no partial file left. It is taken as done (its SHA-256 checked when one was
    /// given) instead of being fetched again.
    private func adoptFinishedDownload(_ id: Int64, spec: QueueJobSpec) -> QueueResult? {
        guard let job = state.withLock({ $0.entries[id]?.job }), let total = job.progress.totalBytes,
            let download = spec.download, let destination = download.destination
        else { return nil }
        guard let prepared = try? engine.downloader.prepare(DownloadRequest(url: download.url, destination: destination)),
            !prepared.hasPartialFile
        else { return nil }
        guard let file = FinishedFile(path: destination), file.size == total, file.modified >= job.createdAt.addingTimeInterval(-1) else { return nil }
        // Read back only to check an expected hash: a job without one computes none.
        var digest: String?
        if let expected = download.sha256 {
            digest = file.sha256()
            guard expected.lowercased() == digest else { return nil }
        }
        return QueueResult(path: destination, bytes: total, sha256: digest)
    }

    private func startCommand(_ id: Int64, spec: QueueJobSpec, previousAttempts: Int) {
        guard let command = spec.command else { return }
        do {
            try StateDirectory.makePrivateSubdirectory(commandLogDirectory)
        } catch {
            fail(id, QueueReason(code: "io", message: error.message))
            return
        }
        let runner = CommandJob(
            spec: command, policy: spec.policy, maxAttempts: spec.maxAttempts ?? QueueJobSpec.defaultMaxAttempts, logPath: logPath(of: id),
            logLimit: configuration.commandLogLimit, monitor: monitor, children: children, jobID: id, retryDelay: configuration.commandRetryDelay)
        let task = Task { [self] in
            do {
                let outcome = try await runner.run(previousAttempts: previousAttempts) { [self] update in commandUpdate(id, update) }
                switch outcome {
                case .succeeded(let result):
                    _ = change(id, history: true, finish: true) { job in
                        job.state = .succeeded
                        job.reason = nil
                        job.network = nil
                        job.result = result
                    }
                case .failed(let reason):
                    fail(id, reason)
                }
            } catch is CancellationError {
                // Paused, cancelled or shut down: they set the state.
            } catch {
                fail(id, QueueReason(code: "cannotRun", message: "\(error)"))
            }
        }
        state.withLock { $0.entries[id]?.task = task }
    }

    private func commandUpdate(_ id: Int64, _ update: CommandJob.Update) {
        switch update {
        case .attemptStarted:
            _ = change(id, history: false) { $0.attempts += 1 }
        case .running:
            _ = change(id, history: true) { job in
                job.state = .running
                job.reason = nil
            }
        case .waiting(let reason):
            let policy = state.withLock { $0.entries[id]?.runSpec?.policy } ?? .any
            _ = change(id, history: true) { job in
                job.state = .paused
                job.reason = QueueStatus.waiting(reason, policy: policy)
            }
        case .retrying(let date, let cause):
            _ = change(id, history: true) { job in
                job.state = .paused
                job.reason = .retrying(at: date, after: cause)
            }
        }
    }

    func fail(_ id: Int64, _ reason: QueueReason) {
        _ = change(id, history: true, finish: true) { job in
            job.state = .failed
            job.reason = reason
            job.network = nil
        }
    }
}
