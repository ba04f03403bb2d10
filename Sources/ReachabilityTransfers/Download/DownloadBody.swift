import ReachabilityCore
import AsyncHTTPClient
import NIOCore
import Synchronization

extension DownloadAttempt {
    /// Streams the body: `pwrite` at the end of the partial file, hashed as it goes, stopping
    /// exactly at the byte limit; checkpoints the metadata every 2 s for a crash of the machine.
    func stream(
        _ body: HTTPClientResponse.Body, into part: PartFile, validators: ResourceValidators, refetchLimit: Int64,
        activity: ActivityClock, report initial: AttemptReport
    ) async -> AttemptReport {
        var report = initial
        let url = download.url.redacted
        var checkpointed = report.metadata ?? metadata
        let clock = ContinuousClock()
        var lastReport = clock.now
        var lastCheckpoint = lastReport
        var bytesAtLastReport = part.length
        var writebackFrom = part.length
        var allowance = byteLimit
        func snapshot(_ length: Int64) -> DownloadProgress {
            DownloadProgress(
                bytesOnDisk: length, totalBytes: validators.size, bytesReceivedThisRun: base.receivedThisRun + report.received,
                bytesRefetched: base.refetched + report.refetched, attempt: base.attempt
            )
        }
        progress(snapshot(part.length))
        do {
            for try await received in body {
                let now = clock.now
                activity.touch(now)
                var chunk = received
                if let left = allowance, chunk.readableBytes > left {
                    chunk = chunk.getSlice(at: chunk.readerIndex, length: Int(left)) ?? chunk
                }
                let before = part.length
                do {
                    try part.append(chunk)
                } catch {
                    report.received += part.length - before
                    report.outcome = .fatal(error.transferError(url: url))
                    return report
                }
                if part.hashingIsBehind { await part.drainHashing() }
                let count = Int64(chunk.readableBytes)
                report.received += count
                if before < refetchLimit { report.refetched += min(count, refetchLimit - before) }
                let length = before + count
                if length - writebackFrom >= Self.writebackStep {
                    // Overlap the disk writeback with the transfer (the finish fsyncs less).
                    part.startWriteback(offset: writebackFrom, length: length - writebackFrom)
                    writebackFrom = length
                }
                if now - lastReport >= .milliseconds(50) || length - bytesAtLastReport >= 4 << 20 {
                    lastReport = now
                    bytesAtLastReport = length
                    progress(snapshot(length))
                }
                if now - lastCheckpoint >= .seconds(2), var record = checkpointed {
                    lastCheckpoint = now
                    record.bytesWritten = length
                    await checkpoint(record, part: part)
                    checkpointed = record
                }
                if let left = allowance {
                    allowance = left - count
                    if left - count <= 0, validators.size.map({ length < $0 }) ?? true {
                        progress(snapshot(length))
                        report.outcome = .limitReached
                        return report
                    }
                }
            }
        } catch {
            report.outcome = Task.isCancelled ? .cancelled : Self.outcome(ErrorClassifier.classify(error, url: download.url))
            return report
        }
        if Task.isCancelled {
            report.outcome = .cancelled
            return report
        }
        let length = part.length
        if let size = validators.size {
            if length < size {
                report.outcome = .incomplete
            } else if length > size {
                report.outcome = .restart(.unexpectedContentRange)
            }
        }
        return report
    }
}

extension DownloadAttempt {
    /// Makes the bytes durable, then records them, on the global executor: the body loop may
    /// run on the event loop reading the socket, which an fsync on slow storage must not hold up.
    private func checkpoint(_ record: PartialDownload, part: PartFile) async {
        let (name, directory) = (download.paths.metadataName, download.directory)
        await withTaskExecutorPreference(globalConcurrentExecutor) {
            try? part.sync()
            try? MetadataFile.write(record, name: name, in: directory)
        }
    }
}

/// A child of ``ActivityClock/watching(timeout:otherwise:_:)``.
private enum WatchedChild<Value: Sendable>: Sendable {
    case work(Value)
    case watchdog(fired: Bool)
}

/// When the current attempt last made progress (a download received bytes; an upload handed a
/// body chunk over or got its answer); watched against the read timeout.
final class ActivityClock: Sendable {
    private let origin = ContinuousClock.now
    private let lastNanoseconds = Atomic<Int64>(0)

    func touch(_ now: ContinuousClock.Instant = .now) {
        lastNanoseconds.store(Int64((now - origin).nanoseconds), ordering: .relaxed)
    }

    /// Runs `work` next to a watchdog that cancels it once nothing arrives for `timeout` (the one
    /// read-timeout mechanism: response head and body alike). Returns what `work` returned
    /// (`fallback` if it never did) and whether the watchdog fired.
    static func watching<Value: Sendable>(
        timeout: Duration, otherwise fallback: Value, _ work: @escaping @Sendable (ActivityClock) async -> Value
    ) async -> (value: Value, timedOut: Bool) {
        let activity = ActivityClock()
        return await withTaskGroup(of: WatchedChild<Value>.self) { group in
            group.addTask { .work(await work(activity)) }
            group.addTask { .watchdog(fired: await activity.watch(timeout: timeout)) }
            var value = fallback
            var timedOut = false
            while let child = await group.next() {
                switch child {
                case .work(let finished):
                    value = finished
                    group.cancelAll()
                case .watchdog(let fired):
                    if fired {
                        timedOut = true
                        group.cancelAll()
                    }
                }
            }
            return (value, timedOut)
        }
    }

    /// Returns true when nothing arrived for `timeout`; false once cancelled.
    func watch(timeout: Duration) async -> Bool {
        let step = max(timeout / 8, .milliseconds(5))
        while true {
            do {
                try await Task.sleep(for: step)
            } catch {
                return false
            }
            let idle = (ContinuousClock.now - origin).nanoseconds - Double(lastNanoseconds.load(ordering: .relaxed))
            if idle >= timeout.nanoseconds { return true }
        }
    }
}
