import ReachabilityCore
import AsyncHTTPClient
import FoundationEssentials
import NIOHTTP1

/// What an upload's request failure means: the downloader's classification
/// (``ErrorClassifier``), plus the upload's own file errors.
enum UploadHTTP {
    /// A failure of one request, and whether trying again may help.
    struct Failure: Error, Sendable {
        var error: TransferError
        var transient: Bool
        var retryAfter: Duration?
    }

    /// Maps an error from the HTTP stack (or from reading the file) to a ``TransferError``,
    /// by its type.
    static func classify(_ error: any Error, url: TransferURL, path: String) -> Failure {
        if let error = error as? SourceError {
            return Failure(error: error.transferError(url: url.redacted, path: path), transient: false)
        }
        switch ErrorClassifier.classify(error, url: url) {
        case .transient(let error): return Failure(error: error, transient: true)
        case .fatal(let error): return Failure(error: error, transient: false)
        case .cancelled: return Failure(error: TransferError(.cancelled, url: url.redacted, path: path), transient: false)
        }
    }

    /// `Retry-After` as a wait, nil when absent or garbage.
    static func retryAfter(_ headers: HTTPHeaders) -> Duration? {
        headers.first(name: "retry-after").flatMap { RetryPolicy.parseRetryAfter($0, now: Int64(Date().timeIntervalSince1970)) }
    }
}
