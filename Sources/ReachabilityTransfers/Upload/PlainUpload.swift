import ReachabilityCore
import AsyncHTTPClient
import NIOHTTP1

extension Uploader {
    /// `PUT` the file, or `POST` it as a form field: each attempt sends the whole file (a
    /// plain server cannot say what it kept of an interrupted one).
    func uploadPlain(_ context: UploadContext, formField: String?) async throws(TransferError) -> UploadResult {
        let size = context.size
        let form = formField.map { MultipartBody(field: $0, filename: FileNameText.basename(context.request.file)) }
        var budget = RetryBudget(maxAttempts: context.request.maxAttempts, policy: retryPolicy)
        var attempt = 0
        var sentThisRun: Int64 = 0
        while true {
            if Task.isCancelled { throw context.cancelled() }
            attempt += 1
            try context.checkUnchanged()
            let (base, number) = (sentThisRun, attempt)
            let meter = UploadMeter(total: size, activity: ActivityClock()) { handed in
                context.progress(
                    UploadProgress(position: handed, totalBytes: size, bytesSentThisRun: base + handed, attempt: number, resumable: false))
            }
            let body = UploadBody(
                source: context.source, range: 0..<size, preamble: form?.preamble ?? [], epilogue: form?.epilogue ?? [], meter: meter)
            var request = context.httpRequest(context.target.url, method: form == nil ? .PUT : .POST)
            if let form {
                request.headers.replaceOrAdd(name: "Content-Type", value: form.contentType)
            } else if !request.headers.contains(name: "content-type") {
                request.headers.add(name: "Content-Type", value: "application/octet-stream")
            }
            request.body = .stream(body, length: .known(body.length))

            let result = await context.exchange.send(request, activity: meter.activity)
            let handed = meter.bytesHanded
            sentThisRun += handed
            context.updateLedger { $0.sent += handed }
            let failure: UploadHTTP.Failure
            switch Self.judge(result, complete: handed == size, context: context) {
            case .success(let answer):
                let location = answer.headers.first(name: "location").flatMap { UploadTarget.resolve($0, against: context.target.url) }
                return context.finish(status: answer.status, location: location, resumable: false, attempts: attempt)
            case .failure(let failed):
                failure = failed
            }
            // What this attempt sent will be sent again, by the next attempt or the next call.
            context.updateLedger { $0.resent += handed }
            guard failure.transient else { throw failure.error }
            try await budget.wait(after: failure.error, retryAfter: failure.retryAfter, cancelled: context.cancelled()) { delay in
                context.progress(
                    UploadProgress(
                        position: 0, totalBytes: size, bytesSentThisRun: sentThisRun, attempt: attempt, resumable: false,
                        retryingAfter: delay))
            }
        }
    }
}

extension Uploader {
    /// A plain attempt's result: the answer when it is a success for the whole file, the
    /// failure (transient or not) otherwise.
    fileprivate static func judge(
        _ result: UploadExchange.Result, complete: Bool, context: UploadContext
    ) -> Result<UploadExchange.Answer, UploadHTTP.Failure> {
        let url = context.target.redacted
        switch result {
        case .answered(let answer):
            switch UploadStatus.decide(answer.status) {
            case .success where complete:
                return .success(answer)
            case .success:
                let error = TransferError(.io, url: url, detail: "the server answered before it had the whole file")
                return .failure(UploadHTTP.Failure(error: error, transient: true))
            case .retry:
                let error = TransferError(.httpStatus(answer.status), url: url)
                return .failure(UploadHTTP.Failure(error: error, transient: true, retryAfter: UploadHTTP.retryAfter(answer.headers)))
            case .fail:
                return .failure(UploadHTTP.Failure(error: TransferError(.httpStatus(answer.status), url: url), transient: false))
            }
        case .failed(let failure):
            return .failure(failure)
        case .cancelled:
            return .failure(UploadHTTP.Failure(error: context.cancelled(), transient: false))
        }
    }
}

/// File names as a server is told them.
enum FileNameText {
    /// The last path component (`/a/b.bin` → `b.bin`); the path itself when it has none.
    static func basename(_ path: String) -> String {
        let trimmed = path.hasSuffix("/") ? String(path.dropLast()) : path
        guard let slash = trimmed.lastIndex(of: "/") else { return trimmed }
        let name = String(trimmed[trimmed.index(after: slash)...])
        return name.isEmpty ? trimmed : name
    }
}
