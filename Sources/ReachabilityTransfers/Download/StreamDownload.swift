import ReachabilityCore
import AsyncHTTPClient
import NIOCore
import NIOHTTP1

extension Downloader {
    /// Downloads `url` into `write` (standard output for `reach get -o -`), with no file on
    /// disk. A failed attempt resumes with `Range` and a strong validator (bytes already
    /// written cannot be taken back); a server that then answers with the whole body again,
    /// or no validator, fails the download.
    ///
    /// - Returns: the bytes written.
    public func stream(
        _ url: String, headers: [HTTPHeaderField] = [], caFile: String? = nil, readTimeout: Duration = .seconds(30),
        maxAttempts: Int = 5, to write: @escaping @Sendable (UnsafeRawBufferPointer) throws -> Void
    ) async throws(TransferError) -> Int64 {
        guard let target = TransferURL(url) else { throw TransferError(.invalidURL, url: Self.shown(url)) }
        let tls = try HTTPClients.tlsConfiguration(caFile: caFile, url: target)
        let lease = try clients.lease(for: target, uplink: nil, followsRedirects: !CredentialRedirects.needsOwnFollowing(headers.map(\.name)))
        defer { lease.release() }
        let client = lease.client
        var written: Int64 = 0
        var validator: String?
        var failures = 0
        while true {
            var request = RequestBuilder.request(target, headers: headers, tls: tls)
            if written > 0, let validator {
                request.headers.replaceOrAdd(name: "Range", value: "bytes=\(written)-")
                request.headers.replaceOrAdd(name: "If-Range", value: validator)
            }
            do {
                let response = try await CredentialRedirects.execute(request, on: client, timeout: .nanoseconds(Int64(readTimeout.nanoseconds)))
                let status = Int(response.status.code)
                if written > 0 && status != 206 {
                    throw TransferError(.resourceChanged, url: target.redacted, detail: "cannot resume standard output: the server sent HTTP \(status)")
                }
                guard (200..<300).contains(status) else { throw TransferError(.httpStatus(status), url: target.redacted) }
                if let etag = response.headers.first(name: "etag"), EntityTag.isStrong(etag) { validator = etag }
                for try await chunk in response.body {
                    do { try chunk.withUnsafeReadableBytes { try write($0) } } catch { throw TransferError(.io, url: target.redacted, path: "-", detail: "\(error)") }
                    written += Int64(chunk.readableBytes)
                    failures = 0
                }
                return written
            } catch let error as TransferError {
                throw error
            } catch {
                let verdict = ErrorClassifier.classify(error, url: target)
                guard case .transient(let failure) = verdict else { throw verdict.error(url: target) }
                failures += 1
                guard failures < maxAttempts, written == 0 || validator != nil else { throw failure }
                let delay = retryPolicy.delay(afterFailure: failures, retryAfter: nil, jitter: Double.random(in: 0...1))
                do { try await Task.sleep(for: delay) } catch { throw TransferError(.cancelled, url: target.redacted) }
            }
        }
    }
}
