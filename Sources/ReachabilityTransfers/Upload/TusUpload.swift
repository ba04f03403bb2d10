import ReachabilityCore
import AsyncHTTPClient
import NIOCore
import NIOHTTP1

#if canImport(Glibc)
import Glibc
#endif

extension Uploader {
    /// tus when the server speaks it (or a resume record says it did), `PUT` otherwise.
    func uploadAutomatic(_ context: UploadContext) async throws(TransferError) -> UploadResult {
        let store = context.request.stateDirectory.map(ResumeStore.init(directory:))
        var lock: Int32?
        if let store {
            do throws(SourceError) {
                try store.prepare()
                lock = try store.lock(context.key)
            } catch {
                throw TransferError(.notWritable, url: context.target.redacted, path: store.directory, detail: error.detail)
            }
            guard lock != nil else {
                throw TransferError(.io, url: context.target.redacted, path: context.request.file, detail: "another process is uploading this file to this URL")
            }
        }
        defer { if let lock, let store { store.unlock(context.key, descriptor: lock) } }
        var run = TusRun(context: context, store: store, budget: RetryBudget(maxAttempts: context.request.maxAttempts, policy: retryPolicy))
        run.location = run.usableRecord()
        if run.location == nil {
            guard try await run.detect() else { return try await uploadPlain(context, formField: nil) }
        }
        return try await run.execute()
    }
}

/// One call's tus upload: create (`POST`), ask for the offset (`HEAD`), send the rest
/// (`PATCH`), until the server holds the whole file.
struct TusRun {
    let context: UploadContext
    let store: ResumeStore?
    var budget: RetryBudget
    /// The upload URL, nil until created.
    var location: String?
    /// The server's offset, as last confirmed.
    var offset: Int64 = 0
    var attempt = 0
    var sentThisRun: Int64 = 0
    var lastStatus = 0

    init(context: UploadContext, store: ResumeStore?, budget: RetryBudget) {
        self.context = context
        self.store = store
        self.budget = budget
    }

    private var target: UploadTarget { context.target }

    /// The upload URL of a record that may be continued; an unusable record is removed.
    func usableRecord() -> String? {
        let record = store.flatMap { $0.read(context.key) } ?? context.updateLedger { $0.record }
        switch ResumeDecision.decide(record: record, file: context.absolutePath, url: target.storageKey, source: context.source.identity) {
        case .fresh: return nil
        case .resume(let location): return location
        case .discard:
            removeRecord()
            return nil
        }
    }

    /// Asks the server with `OPTIONS` whether it speaks tus 1.0.
    mutating func detect() async throws(TransferError) -> Bool {
        while true {
            if Task.isCancelled { throw context.cancelled() }
            var request = context.httpRequest(target.url, method: .OPTIONS)
            request.headers.replaceOrAdd(name: "Tus-Resumable", value: TusProtocol.version)
            switch await context.exchange.send(request, activity: ActivityClock()) {
            case .answered(let answer):
                let detection = TusProtocol.detection(
                    status: answer.status, tusResumable: answer.headers.first(name: "tus-resumable"),
                    tusVersion: answer.headers.first(name: "tus-version"))
                switch detection {
                case .tus: return true
                case .plain: return false
                case .retry: try await retry(httpFailure(answer))
                }
            case .failed(let failure):
                try await retry(failure)
            case .cancelled:
                throw context.cancelled()
            }
        }
    }

    mutating func execute() async throws(TransferError) -> UploadResult {
        var needsHead = location != nil
        while true {
            if Task.isCancelled { throw context.cancelled() }
            attempt += 1
            if location == nil {
                try await create()
                needsHead = false
                continue
            }
            if needsHead {
                guard try await head() else { continue }
                needsHead = false
            }
            if offset >= context.size {
                removeRecord()
                return context.finish(status: lastStatus, location: location, resumable: true, attempts: attempt)
            }
            try context.checkUnchanged()
            needsHead = try await patch()
        }
    }

    /// `POST` with `Upload-Length`: a new upload, recorded before any byte is sent.
    private mutating func create() async throws(TransferError) {
        var request = context.httpRequest(target.url, method: .POST)
        request.headers.replaceOrAdd(name: "Tus-Resumable", value: TusProtocol.version)
        request.headers.replaceOrAdd(name: "Upload-Length", value: String(context.size))
        request.headers.replaceOrAdd(name: "Upload-Metadata", value: TusProtocol.metadata(filename: FileNameText.basename(context.request.file)))
        request.body = .bytes(ByteBuffer())
        switch await context.exchange.send(request, activity: ActivityClock()) {
        case .answered(let answer) where (200..<300).contains(answer.status):
            guard let created = answer.headers.first(name: "location").flatMap({ UploadTarget.resolve($0, against: target.url) }) else {
                throw TransferError(.io, url: target.redacted, detail: "the server created an upload without a usable Location")
            }
            location = created
            offset = 0
            lastStatus = answer.status
            context.updateLedger { ledger in
                if ledger.resumedFrom == nil { ledger.resumedFrom = 0 }
                ledger.inFlightEnd = nil
            }
            do throws(SourceError) {
                try saveRecord()
            } catch {
                throw TransferError(.notWritable, url: target.redacted, path: store?.directory, detail: error.detail)
            }
        case .answered(let answer) where UploadStatus.isRetryable(answer.status):
            try await retry(httpFailure(answer))
        case .answered(let answer):
            throw TransferError(.httpStatus(answer.status), url: target.redacted)
        case .failed(let failure):
            try await retry(failure)
        case .cancelled:
            throw context.cancelled()
        }
    }

    /// `HEAD`: the server's offset. False when the loop must go round again (the upload was
    /// gone and will be created anew, or a retry waited).
    private mutating func head() async throws(TransferError) -> Bool {
        guard let location else { return false }
        var request = context.httpRequest(location, method: .HEAD)
        request.headers.replaceOrAdd(name: "Tus-Resumable", value: TusProtocol.version)
        switch await context.exchange.send(request, activity: ActivityClock()) {
        case .answered(let answer):
            let decision = TusProtocol.decideHead(
                status: answer.status, offset: answer.headers.first(name: "upload-offset"),
                length: answer.headers.first(name: "upload-length"), size: context.size)
            switch decision {
            case .resume(let serverOffset):
                if serverOffset > offset { budget.progressed() }
                offset = serverOffset
                lastStatus = answer.status
                context.updateLedger { $0.serverHolds(serverOffset) }
                try? saveRecord()
                return true
            case .recreate(let reason):
                try await startOver(reason)
            case .retry:
                try await retry(httpFailure(answer))
            case .fail(let status):
                throw TransferError(.httpStatus(status), url: target.redacted)
            }
        case .failed(let failure):
            try await retry(failure)
        case .cancelled:
            throw context.cancelled()
        }
        return false
    }

    /// `PATCH` from the offset to the end of the file. Returns whether the offset must be asked
    /// for again (the attempt was interrupted, or the server disagreed).
    private mutating func patch() async throws(TransferError) -> Bool {
        guard let location else { return false }
        let (start, size, base, number, progress) = (offset, context.size, sentThisRun, attempt, context.progress)
        let meter = UploadMeter(total: size - start, activity: ActivityClock()) { handed in
            progress(UploadProgress(position: start + handed, totalBytes: size, bytesSentThisRun: base + handed, attempt: number, resumable: true))
        }
        let body = UploadBody(source: context.source, range: start..<size, meter: meter)
        var request = context.httpRequest(location, method: .PATCH)
        request.headers.replaceOrAdd(name: "Tus-Resumable", value: TusProtocol.version)
        request.headers.replaceOrAdd(name: "Upload-Offset", value: String(start))
        request.headers.replaceOrAdd(name: "Content-Type", value: "application/offset+octet-stream")
        request.body = .stream(body, length: .known(body.length))
        let result = await context.exchange.send(request, activity: meter.activity)
        let handed = meter.bytesHanded
        sentThisRun += handed
        context.updateLedger { ledger in
            ledger.sent += handed
            ledger.inFlightEnd = start + handed
        }
        switch result {
        case .answered(let answer):
            return try await judgePatch(answer, start: start, handed: handed)
        case .failed(let failure):
            try await retry(failure)
            return true
        case .cancelled:
            // The record stays; the next call asks the server what arrived.
            throw context.cancelled()
        }
    }

    private mutating func judgePatch(_ answer: UploadExchange.Answer, start: Int64, handed: Int64) async throws(TransferError) -> Bool {
        let decision = TusProtocol.decidePatch(
            status: answer.status, offset: answer.headers.first(name: "upload-offset"), sentFrom: start, size: context.size)
        switch decision {
        case .advanced(let serverOffset):
            if serverOffset > start { budget.progressed() }
            offset = serverOffset
            lastStatus = answer.status
            context.updateLedger { $0.serverHolds(serverOffset) }
            try? saveRecord()
            return false
        case .resynchronize:
            try await retry(UploadHTTP.Failure(error: TransferError(.httpStatus(answer.status), url: target.redacted), transient: true))
            return true
        case .stalled(let serverOffset):
            offset = serverOffset
            context.updateLedger { $0.serverHolds(serverOffset) }
            let detail = "the server accepted \(handed) bytes from offset \(start) but its Upload-Offset (\(serverOffset)) did not advance"
            try await retry(UploadHTTP.Failure(error: TransferError(.protocolError, url: target.redacted, detail: detail), transient: true))
            return true
        case .recreate(let reason):
            try await startOver(reason)
            return false
        case .retry:
            try await retry(httpFailure(answer))
            return true
        case .fail(let status):
            throw TransferError(.httpStatus(status), url: target.redacted)
        }
    }

    /// The upload is gone (or unusable): forget it and create a new one from byte 0. Counted
    /// as a failure, so a server that keeps losing uploads cannot keep us creating them.
    private mutating func startOver(_ reason: String) async throws(TransferError) {
        removeRecord()
        context.updateLedger { $0.restart() }
        location = nil
        offset = 0
        try await retry(UploadHTTP.Failure(error: TransferError(.io, url: target.redacted, detail: reason), transient: true))
    }

    private func httpFailure(_ answer: UploadExchange.Answer) -> UploadHTTP.Failure {
        UploadHTTP.Failure(
            error: TransferError(.httpStatus(answer.status), url: target.redacted), transient: UploadStatus.isRetryable(answer.status),
            retryAfter: UploadHTTP.retryAfter(answer.headers))
    }

    /// Throws a permanent failure; waits before the next attempt after a transient one.
    private mutating func retry(_ failure: UploadHTTP.Failure) async throws(TransferError) {
        guard failure.transient else { throw failure.error }
        let waiting = UploadProgress(
            position: offset, totalBytes: context.size, bytesSentThisRun: sentThisRun, attempt: attempt, resumable: true)
        let progress = context.progress
        try await budget.wait(after: failure.error, retryAfter: failure.retryAfter, cancelled: context.cancelled()) { delay in
            var report = waiting
            report.retryingAfter = delay
            progress(report)
        }
    }

    private func saveRecord() throws(SourceError) {
        guard let location else { return }
        let record = ResumeRecord(
            file: context.absolutePath, url: target.storageKey, location: location, source: context.source.identity, offset: offset)
        context.updateLedger { $0.record = record }
        try store?.write(record, key: context.key)
    }

    private func removeRecord() {
        context.updateLedger { $0.record = nil }
        store?.remove(context.key)
    }
}
