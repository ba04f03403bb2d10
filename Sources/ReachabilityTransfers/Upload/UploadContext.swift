import ReachabilityCore
import AsyncHTTPClient
import NIOHTTP1
import NIOSSL
import Synchronization

/// Everything one call of ``Uploader/upload(_:progress:)`` works with.
struct UploadContext: Sendable {
    let uploader: Uploader
    let request: UploadRequest
    let target: UploadTarget
    let source: UploadSource
    /// The file's absolute path (the resume record's key).
    let absolutePath: String
    /// The resume record's and the ledger's key.
    let key: String
    let exchange: UploadExchange
    let tls: TLSConfiguration?
    let progress: @Sendable (UploadProgress) -> Void

    var size: Int64 { source.identity.size }

    /// Headers the caller may not set: the uploader frames the body itself.
    private static let reservedHeaders: Set<String> = ["content-length", "transfer-encoding"]

    /// A request with the caller's headers, the credentials (only to the URL's own origin)
    /// and TLS settings.
    func httpRequest(_ url: String, method: HTTPMethod) -> HTTPClientRequest {
        var request = HTTPClientRequest(url: url)
        request.method = method
        request.tlsConfiguration = tls
        for header in Self.headers(self.request.headers, to: url, target: target) {
            request.headers.add(name: header.name, value: header.value)
        }
        if let authorization = target.authorization, target.isSameOrigin(url), !request.headers.contains(name: "authorization") {
            request.headers.add(name: "Authorization", value: authorization)
        }
        if !request.headers.contains(name: "user-agent") { request.headers.add(name: "User-Agent", value: "reach-transfers/1") }
        return request
    }

    /// The caller's header fields for a request to `url`: credential fields (see
    /// ``TransferURL/isCredentialHeader(_:)``) only when `url` has the target's origin (a tus
    /// server's `Location` may point elsewhere: async-http-client drops the same fields on a
    /// cross-origin redirect); the framing fields never.
    static func headers(_ fields: [HTTPHeaderField], to url: String, target: UploadTarget) -> [HTTPHeaderField] {
        let sameOrigin = target.isSameOrigin(url)
        return fields.filter { field in
            !reservedHeaders.contains(field.name.lowercased()) && (sameOrigin || !TransferURL.isCredentialHeader(field.name))
        }
    }

    func cancelled() -> TransferError {
        TransferError(.cancelled, url: target.redacted, path: request.file)
    }

    func updateLedger<T>(_ change: (inout UploadLedger) -> T) -> T {
        uploader.ledgers.withLock { ledgers in
            var ledger = ledgers[key] ?? UploadLedger()
            let result = change(&ledger)
            ledgers[key] = ledger
            return result
        }
    }

    /// The result, once the server has the whole file; forgets this upload's bookkeeping.
    func finish(status: Int, location: String?, resumable: Bool, attempts: Int) -> UploadResult {
        let ledger = uploader.ledgers.withLock { $0.removeValue(forKey: key) } ?? UploadLedger()
        return UploadResult(
            bytes: size, bytesSentTotal: ledger.sent, bytesResent: ledger.resent, resumedFrom: ledger.resumedFrom ?? 0,
            resumable: resumable, status: status, location: location, attempts: attempts
        )
    }

    /// Fails unless the file is still the version that was opened (its bytes would mix).
    func checkUnchanged() throws(TransferError) {
        guard source.currentIdentity() == source.identity else {
            throw TransferError(.io, url: target.redacted, path: request.file, detail: "the file changed during the upload")
        }
    }
}

/// Consecutive failures without progress, and the waits between them.
struct RetryBudget {
    let maxAttempts: Int
    let policy: RetryPolicy
    private(set) var failures = 0

    init(maxAttempts: Int, policy: RetryPolicy) {
        self.maxAttempts = max(maxAttempts, 1)
        self.policy = policy
    }

    /// Progress was made: the next failure is the first again.
    mutating func progressed() { failures = 0 }

    /// Counts a failure; throws `error` when the budget is spent, otherwise reports the wait
    /// and sleeps it (a cancellation during the wait throws `cancelled`).
    mutating func wait(
        after error: TransferError, retryAfter: Duration?, cancelled: TransferError, report: (Duration) -> Void
    ) async throws(TransferError) {
        failures += 1
        guard failures < maxAttempts else { throw error }
        let delay = policy.delay(afterFailure: failures, retryAfter: retryAfter, jitter: Double.random(in: 0...1))
        report(delay)
        do {
            try await Task.sleep(for: delay)
        } catch {
            throw cancelled
        }
    }
}
