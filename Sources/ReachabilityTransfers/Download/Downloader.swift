import ReachabilityCore
public import AsyncHTTPClient
import FoundationEssentials
import NIOCore
import NIOHTTP1
import NIOSSL
import Synchronization

/// Resumable HTTP(S) downloads: `Range` + `If-Range` resume, a crash-safe partial file,
/// bounded retries with backoff, optional SHA-256 verification and an atomic finish.
///
/// ```swift
/// let downloader = Downloader()
/// defer { downloader.shutdown() }
/// let result = try await downloader.download(
///     DownloadRequest(url: "https://example.com/image.iso", destination: "/srv/image.iso")
/// ) { progress in print(progress.bytesOnDisk, progress.totalBytes ?? -1) }
/// ```
///
/// While it runs, a download writes `NAME.part` and the sidecar `NAME.part.json` (URL without
/// secrets, size, ETag, Last-Modified, bytes written), both mode 0600 and created relative to
/// the destination's directory without following symlinks. The partial file's length is the
/// truth about what is on disk: a later run — of the same ``Download`` after a pause, which
/// re-reads nothing, or in another process after a crash or `SIGKILL`, which re-hashes the
/// partial file once — resumes with `Range: bytes=N-` and `If-Range`, and never asks again for
/// bytes already on disk. If the resource changed (or the server ignores `Range`) the download
/// starts again from 0 without mixing old and new bytes. On success the partial file is
/// fsync'd and renamed to the destination, and the metadata removed.
///
/// Proxies come from `http_proxy`, `https_proxy`, `all_proxy` and `no_proxy` (see
/// ``ProxySettings``). Cancelling the calling task stops the transfer promptly and leaves the
/// partial file and its metadata consistent: that is how to pause.
public final class Downloader: Sendable {
    let clients: HTTPClients
    /// How waits between attempts are computed.
    public let retryPolicy: RetryPolicy
    /// Destinations a ``Download`` of this downloader holds.
    private let claimed = Mutex<Set<String>>([])

    /// A downloader with its own HTTP clients (call ``shutdown()`` when done with it), using
    /// `proxies` (by default those of the environment).
    public init(retryPolicy: RetryPolicy = RetryPolicy(), proxies: ProxySettings = .fromEnvironment()) {
        clients = HTTPClients(proxies: proxies)
        self.retryPolicy = retryPolicy
    }

    /// A downloader using `client`, which the caller keeps and shuts down. Configure it with
    /// decompression disabled (byte ranges are of the encoded body) and, ideally,
    /// `connectionPool.retryConnectionEstablishment = false`.
    public init(client: HTTPClient, retryPolicy: RetryPolicy = RetryPolicy()) {
        clients = HTTPClients(client: client)
        self.retryPolicy = retryPolicy
    }

    /// Starts shutting the owned clients down and returns at once (usable in `defer`); does
    /// nothing for a client given to ``init(client:retryPolicy:)``. Downloads still running fail.
    public func shutdown() { clients.shutdown() }

    /// Shuts the owned clients down and waits for them.
    public func shutdownGracefully() async throws { try await clients.shutdownGracefully() }

    /// Checks `request` without any network traffic (the URL, ``DownloadRequest/connections``,
    /// the destination: its directory writable, nothing but a regular file in its place, no
    /// other download into it) and returns the download, ready to
    /// ``Download/run(byteLimit:admit:progress:)``.
    public func prepare(_ request: DownloadRequest) throws(TransferError) -> Download { try prepare(request, claim: nil) }

    /// ``prepare(_:)`` under a claim taken before (by an earlier ``prepare(_:)`` of the same
    /// request, whose ``Download`` was let go while the job waited): refused when the
    /// destination's directory is no longer the one that claim was taken in.
    func prepare(_ request: DownloadRequest, claim existing: DownloadClaim?) throws(TransferError) -> Download {
        guard let url = TransferURL(request.url) else {
            throw TransferError(.invalidURL, url: Self.shown(request.url), detail: "only http and https URLs with a host (and a port in 1-65535) are supported")
        }
        guard DownloadRequest.connectionRange.contains(request.connections) else {
            let range = DownloadRequest.connectionRange
            throw TransferError(.invalidRequest, url: url.redacted, detail: "connections must be \(range.lowerBound) to \(range.upperBound), not \(request.connections)")
        }
        let paths = TransferPaths(destination: request.destination)
        let directory: DirectoryHandle
        do throws(FileError) {
            directory = try DirectoryHandle(path: paths.directoryPath)
        } catch {
            throw TransferError(.notWritable, url: url.redacted, path: request.destination, detail: error.message)
        }
        try DestinationCheck.check(paths, in: directory, url: url.redacted)
        let tls = try HTTPClients.tlsConfiguration(caFile: request.caFile, url: url)
        let key = directory.identity + "/" + paths.name
        let claim: DownloadClaim
        if let existing {
            guard existing.key == key else {
                throw TransferError(
                    .notWritable, url: url.redacted, path: request.destination, detail: "refusing to use another directory than the one the download was added for at \(paths.directoryPath)")
            }
            claim = existing
        } else {
            guard claimed.withLock({ $0.insert(key).inserted }) else {
                throw TransferError(.io, url: url.redacted, path: request.destination, detail: "another download into this path is running")
            }
            claim = DownloadClaim(key: key, downloader: self)
        }
        return Download(downloader: self, request: request, url: url, paths: paths, directory: directory, tls: tls, claim: claim)
    }

    fileprivate func release(_ claim: String) {
        _ = claimed.withLock { $0.remove(claim) }
    }

    /// Downloads `request.url` into `request.destination`, resuming a partial download left by
    /// an earlier run or process: ``prepare(_:)`` then one run.
    ///
    /// - Parameters:
    ///   - request: what to download and where.
    ///   - progress: called from the downloading task, at most about every 50 ms or 4 MiB, and
    ///     once before each wait between attempts (with ``DownloadProgress/retryingAfter``).
    /// - Throws: ``TransferError``; `invalidURL`, `invalidRequest` and `notWritable` before any
    ///   network traffic.
    public func download(
        _ request: DownloadRequest, progress: @escaping @Sendable (DownloadProgress) -> Void = { _ in }
    ) async throws(TransferError) -> DownloadResult {
        try await prepare(request).run(progress: progress)
    }

    /// A URL for a message when it does not even parse: without anything before an `@`.
    static func shown(_ text: String) -> String { TransferURL.redactingUserinfo(text) }

    // MARK: Probe

    /// Asks the server about `url` without downloading it: `HEAD`, or — when `HEAD` is refused
    /// (`405`, `501`) — `GET` with `Range: bytes=0-0`.
    public func probe(
        _ url: String, timeout: Duration = .seconds(30), caFile: String? = nil, headers: [HTTPHeaderField] = []
    ) async throws(TransferError) -> RemoteResource {
        guard let target = TransferURL(url) else { throw TransferError(.invalidURL, url: Self.shown(url)) }
        let tls = try HTTPClients.tlsConfiguration(caFile: caFile, url: target)
        let lease = try clients.lease(for: target, uplink: nil, followsRedirects: !CredentialRedirects.needsOwnFollowing(headers.map(\.name)))
        defer { lease.release() }
        let client = lease.client
        var head = RequestBuilder.request(target, headers: headers, tls: tls)
        head.method = .HEAD
        let response: HTTPClientResponse
        do {
            response = try await CredentialRedirects.execute(head, on: client, timeout: .nanoseconds(Int64(timeout.nanoseconds)))
        } catch {
            throw ErrorClassifier.classify(error, url: target).error(url: target)
        }
        let status = Int(response.status.code)
        if status == 405 || status == 501 {
            var get = RequestBuilder.request(target, headers: headers, tls: tls)
            get.headers.add(name: "Range", value: "bytes=0-0")
            return try await probeWithRange(get, client: client, url: target, timeout: timeout)
        }
        guard (200..<300).contains(status) else { throw TransferError(.httpStatus(status), url: target.redacted) }
        return RemoteResource(url: target.redacted, headers: response.headers, rangeTotal: nil)
    }

    private func probeWithRange(_ get: HTTPClientRequest, client: HTTPClient, url: TransferURL, timeout: Duration) async throws(TransferError) -> RemoteResource {
        do {
            let response = try await CredentialRedirects.execute(get, on: client, timeout: .nanoseconds(Int64(timeout.nanoseconds)))
            let status = Int(response.status.code)
            switch status {
            case 206:
                let range = response.headers.first(name: "content-range").flatMap(ContentRange.init)
                _ = try await response.body.collect(upTo: 1 << 16)
                var resource = RemoteResource(url: url.redacted, headers: response.headers, rangeTotal: range?.total)
                resource.acceptsRanges = true
                return resource
            case 200..<300:
                // The whole body would follow: stop reading it (dropping the response ends the request).
                return RemoteResource(url: url.redacted, headers: response.headers, rangeTotal: nil)
            default:
                throw TransferError(.httpStatus(status), url: url.redacted)
            }
        } catch let error as TransferError {
            throw error
        } catch {
            throw ErrorClassifier.classify(error, url: url).error(url: url)
        }
    }
}

extension RemoteResource {
    init(url: String, headers: HTTPHeaders, rangeTotal: Int64?) {
        self.init(
            url: url, size: rangeTotal ?? headers.first(name: "content-length").flatMap(ContentLength.parse),
            etag: headers.first(name: "etag"), lastModified: headers.first(name: "last-modified"),
            acceptsRanges: headers[canonicalForm: "accept-ranges"].contains { $0.lowercased() == "bytes" }
        )
    }
}

extension ErrorClassifier.Verdict {
    func error(url: TransferURL) -> TransferError {
        switch self {
        case .transient(let error), .fatal(let error): error
        case .cancelled: TransferError(.cancelled, url: url.redacted)
        }
    }
}

/// Requests as every transfer sends them.
enum RequestBuilder {
    static func request(_ url: TransferURL, headers: [HTTPHeaderField], tls: TLSConfiguration?) -> HTTPClientRequest {
        var request = HTTPClientRequest(url: url.requestURL)
        request.headers.add(name: "Accept-Encoding", value: "identity")
        request.headers.add(name: "User-Agent", value: "reach-transfers/1")
        if let authorization = url.authorization { request.headers.add(name: "Authorization", value: authorization) }
        for header in headers {
            request.headers.replaceOrAdd(name: header.name, value: header.value)
        }
        request.tlsConfiguration = tls
        return request
    }
}


/// A download's hold on its destination file (its directory's identity and its name): while it
/// lives, no other download of this downloader writes there. Kept by a waiting job in place of
/// its whole ``Download``, which is made again when the job runs.
final class DownloadClaim: Sendable {
    let key: String
    private let downloader: Downloader
    private let isHeld = Atomic<Bool>(true)

    fileprivate init(key: String, downloader: Downloader) {
        self.key = key
        self.downloader = downloader
    }

    /// Lets go of the file now (its job finished), not when the last holder goes: a task that
    /// reported the job finished may still hold it a moment, and the next download into the
    /// file must not be refused meanwhile.
    func release() {
        if isHeld.exchange(false, ordering: .acquiringAndReleasing) { downloader.release(key) }
    }

    deinit { release() }
}
