import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

#if canImport(Glibc)
import Glibc
#endif

/// The HTTP plumbing uploads need: the client's configuration, TLS, and what an error from
/// the stack means. (A copy of the downloader's, kept apart while that is rewritten; the two
/// are to be unified.)
enum UploadHTTP {
    /// An `HTTPClient` configured as the downloader's own: our retries (so the pool fails
    /// fast), no decompression, up to 5 redirects (followed only for requests without a body:
    /// a streamed body cannot be sent twice, so its redirect comes back as the answer).
    static func makeClient() -> HTTPClient {
        var configuration = HTTPClient.Configuration()
        configuration.timeout = HTTPClient.Configuration.Timeout(connect: .seconds(15))
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.decompression = .disabled
        configuration.redirectConfiguration = .follow(max: 5, allowCycles: false)
        return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }

    static func tlsConfiguration(caFile: String?, url: String) throws(TransferError) -> TLSConfiguration? {
        guard let caFile else { return nil }
        guard access(caFile, R_OK) == 0 else {
            throw TransferError(.tlsFailure, url: url, path: caFile, detail: "CA file \(caFile) is not readable")
        }
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.additionalTrustRoots = [.file(caFile)]
        return configuration
    }

    /// A failure of one request, and whether trying again may help.
    struct Failure: Error, Sendable {
        var error: TransferError
        var transient: Bool
        var retryAfter: Duration?
    }

    /// Maps an error from the HTTP stack (or from reading the file) to a ``TransferError``,
    /// by its type.
    static func classify(_ error: any Error, url: String, path: String) -> Failure {
        func failure(_ kind: TransferError.Kind, transient: Bool, detail: String = "\(error)") -> Failure {
            Failure(error: TransferError(kind, url: url, detail: detail), transient: transient)
        }
        if let error = error as? SourceError {
            return Failure(error: error.transferError(url: url, path: path), transient: false)
        }
        if error is CancellationError { return failure(.cancelled, transient: false, detail: "") }
        if let error = error as? HTTPClientError {
            if [.invalidURL, .emptyHost, .emptyScheme].contains(error) { return failure(.invalidURL, transient: false) }
            if error == .cancelled { return failure(.cancelled, transient: false, detail: "") }
            if [.readTimeout, .writeTimeout, .deadlineExceeded, .connectTimeout, .tlsHandshakeTimeout, .getConnectionFromPoolTimeout]
                .contains(error)
            {
                return failure(.timedOut, transient: true)
            }
            return failure(.io, transient: true)
        }
        if error is NIOSSLError || error is BoringSSLError || error is NIOSSLExtraError {
            return failure(.tlsFailure, transient: false, detail: tlsText(error))
        }
        if let error = error as? NIOConnectionError {
            let causes = error.connectionErrors.map { "\($0.error)" } + [error.dnsAError, error.dnsAAAAError].compactMap { $0.map { "\($0)" } }
            return failure(.unreachable, transient: true, detail: causes.first ?? "connection failed")
        }
        if let error = error as? IOError {
            switch error.errnoCode {
            case ECONNREFUSED, EHOSTUNREACH, ENETUNREACH, EHOSTDOWN: return failure(.unreachable, transient: true)
            case ETIMEDOUT: return failure(.timedOut, transient: true)
            default: return failure(.io, transient: true)
            }
        }
        if let error = error as? ChannelError, case .connectTimeout = error { return failure(.timedOut, transient: true) }
        if error is SocketAddressError { return failure(.unreachable, transient: true) }
        return failure(.io, transient: true)
    }

    /// A TLS error without BoringSSL's source locations (build paths mean nothing to a user).
    static func tlsText(_ error: any Error) -> String {
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

    /// `Retry-After` as a wait, nil when absent or garbage.
    static func retryAfter(_ headers: HTTPHeaders) -> Duration? {
        headers.first(name: "retry-after").flatMap { RetryPolicy.parseRetryAfter($0, now: Int64(Date().timeIntervalSince1970)) }
    }
}
