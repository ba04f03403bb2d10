import NIOCore
import NIOSSL

/// TLS for HTTPS probes: the system's trust roots plus the validation's CA file, and the
/// words a TLS failure is reported in.
enum ProbeTLS {
    /// A client context for one round; a CA file that cannot be read fails every HTTPS probe
    /// with the reason rather than silently trusting less.
    static func context(caFile: String?) -> Result<NIOSSLContext, ProbeFailure> {
        var configuration = TLSConfiguration.makeClientConfiguration()
        if let caFile { configuration.additionalTrustRoots = [.file(caFile)] }
        // A probe's connection is thrown away: waiting long for the peer's close_notify buys nothing.
        configuration.shutdownTimeout = .milliseconds(500)
        do {
            return .success(try NIOSSLContext(configuration: configuration))
        } catch {
            let file = caFile.map { " (CA file \($0))" } ?? ""
            return .failure(ProbeFailure(detail: "TLS: cannot set up\(file): \(describe(error))"))
        }
    }

    /// Whether `error` came from the TLS layer.
    static func isTLSError(_ error: any Error) -> Bool {
        error is NIOSSLError || error is NIOSSLExtraError || error is BoringSSLError
    }

    /// `certificate verify failed`, `certificate does not match the host`: BoringSSL's reason
    /// code in words when there is one, else NIOSSL's description.
    static func describe(_ error: any Error) -> String {
        if let extra = error as? NIOSSLExtraError, extra == .failedToValidateHostname {
            return "certificate does not match the host"
        }
        if case .handshakeFailed(let boring)? = error as? NIOSSLError, let reason = reasonCode(String(describing: boring)) {
            return reason
        }
        if let reason = reasonCode(String(describing: error)) { return reason }
        return String(describing: error)
    }

    /// `CERTIFICATE_VERIFY_FAILED` out of BoringSSL's `error:1000007d:SSL routines:…:CERTIFICATE_VERIFY_FAILED at …`,
    /// as `certificate verify failed`.
    private static func reasonCode(_ text: String) -> String? {
        guard let range = text.firstRange(of: "OPENSSL_internal:") else { return nil }
        let code = text[range.upperBound...].prefix { $0.isLetter || $0.isNumber || $0 == "_" }
        guard !code.isEmpty else { return nil }
        return String(code.lowercased().map { $0 == "_" ? " " : $0 })
    }
}
