import ReachabilityCore
import AsyncHTTPClient
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

#if canImport(Glibc)
import Glibc
#endif

/// Maps an error of the HTTP stack to a ``TransferError`` and whether another attempt may
/// help, by the error's type and code, never by its text.
enum ErrorClassifier {
    enum Verdict: Sendable {
        case transient(TransferError)
        case fatal(TransferError)
        case cancelled
    }

    private static let timeouts: [HTTPClientError] = [
        .readTimeout, .writeTimeout, .deadlineExceeded, .connectTimeout, .tlsHandshakeTimeout, .getConnectionFromPoolTimeout,
        .socksHandshakeTimeout, .httpProxyHandshakeTimeout,
    ]
    /// Answers that would be the same on every attempt. (async-http-client no longer throws
    /// `chunkedSpecifiedMultipleTimes`, `incompatibleHeaders` or `httpEndReceivedAfterHeadWith1xx`:
    /// it corrects the headers, or reads the informational answer.)
    private static let protocolErrors: [HTTPClientError] = [
        .redirectLimitReached, .redirectCycleDetected, .identityCodingIncorrectlyPresent, .traceRequestWithBody,
    ]
    private static let invalidURLs: [HTTPClientError] = [.invalidURL, .emptyHost, .emptyScheme]
    private static let proxyErrors: [HTTPClientError] = [.invalidProxyResponse, .proxyAuthenticationRequired]

    static func classify(_ error: any Error, url: TransferURL) -> Verdict {
        func make(_ kind: TransferError.Kind) -> TransferError {
            TransferError(kind, url: url.redacted, detail: url.redact("\(error)"))
        }
        if error is CancellationError { return .cancelled }
        if let error = error as? HTTPClientError {
            if error == .cancelled || error == .requestStreamCancelled { return .cancelled }
            if invalidURLs.contains(error) { return .fatal(make(.invalidURL)) }
            if protocolErrors.contains(error) { return .fatal(make(.protocolError)) }
            if proxyErrors.contains(error) { return .fatal(make(.proxyFailure)) }
            if timeouts.contains(error) { return .transient(make(.timedOut)) }
            return .transient(make(.io))
        }
        if let error = error as? HTTPParserError {
            // A connection closed mid-body is a network failure, not a malformed answer.
            if case .invalidEOFState = error { return .transient(make(.io)) }
            return .fatal(make(.protocolError))
        }
        if error is NIOSSLError || error is BoringSSLError || error is NIOSSLExtraError {
            return .fatal(TransferError(.tlsFailure, url: url.redacted, detail: tlsReason(error)))
        }
        if let error = error as? IOError {
            switch error.errnoCode {
            case ECONNREFUSED, EHOSTUNREACH, ENETUNREACH, EHOSTDOWN: return .transient(make(.unreachable))
            case ETIMEDOUT: return .transient(make(.timedOut))
            default: return .transient(make(.io))
            }
        }
        if let error = error as? ChannelError, case .connectTimeout = error { return .transient(make(.timedOut)) }
        if error is NIOConnectionError || error is SocketAddressError { return .transient(make(.unreachable)) }
        return .transient(make(.io))
    }
}

/// A TLS error in words, without BoringSSL's source locations (`… at /path/to/handshake.cc:320`):
/// build paths mean nothing to a user and leak the build machine's layout.
package func tlsReason(_ error: any Error) -> String {
    let text = "\(error)"
    if text.contains("CERTIFICATE_VERIFY_FAILED") { return "the server's certificate did not verify (CERTIFICATE_VERIFY_FAILED)" }
    var out = ""
    var rest = Substring(text)
    while let at = rest.firstRange(of: " at /") {
        out += rest[..<at.lowerBound]
        rest = rest[at.upperBound...].drop { !($0 == " " || $0 == "]" || $0 == ")" || $0 == ",") }
    }
    return out + rest
}
