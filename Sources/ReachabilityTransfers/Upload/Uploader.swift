import ReachabilityCore
public import AsyncHTTPClient
import Dispatch
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// HTTP(S) uploads of a file streamed from disk: `PUT`, a `multipart/form-data` `POST`, or
/// tus 1.0 resumable uploads that continue where an earlier call or process stopped.
///
/// ```swift
/// let uploader = Uploader()
/// defer { uploader.shutdown() }
/// let result = try await uploader.upload(
///     UploadRequest(file: "/srv/backup.tar", url: "https://files.example.com/uploads/",
///                   stateDirectory: "/var/lib/myapp/uploads")
/// ) { progress in print(progress.position, progress.totalBytes) }
/// ```
///
/// In ``UploadRequest/Mode-swift.enum/automatic`` mode the uploader asks the server with
/// `OPTIONS` whether it speaks tus. If it does, it creates an upload (`POST` with
/// `Upload-Length`), writes a resume record (the upload URL, and the file's size, mtime and
/// inode) into the request's state directory, and sends the file with `PATCH`. A later call —
/// in this process after a cancellation, or in another after a crash or `SIGKILL` — asks the
/// server for its offset with `HEAD` and sends only the rest: no byte the server holds is sent
/// again. A file that changed since starts a new upload instead of mixing versions. Servers
/// that do not speak tus get a `PUT`, which starts from byte 0 on every attempt.
///
/// Cancelling the calling task stops the upload promptly and keeps the resume record: that is
/// how to pause. Failures are retried with backoff (``RetryPolicy``), except `4xx` answers
/// other than `408` and `429`.
public final class Uploader: Sendable {
    let clients: HTTPClients
    /// How waits between attempts are computed.
    public let retryPolicy: RetryPolicy
    /// Per (file, URL), over the calls in this process: what was sent, and tus bookkeeping.
    let ledgers = Mutex<[String: UploadLedger]>([:])
    private let active = Mutex<Set<String>>([])

    /// An uploader with its own HTTP clients (call ``shutdown()`` when done with it), using
    /// `proxies` (by default those of the environment).
    public convenience init(retryPolicy: RetryPolicy = RetryPolicy(), proxies: ProxySettings = .fromEnvironment()) {
        self.init(clients: HTTPClients(proxies: proxies), retryPolicy: retryPolicy)
    }

    /// An uploader using `client`, which the caller keeps and shuts down. Configure it with
    /// `connectionPool.retryConnectionEstablishment = false`: the uploader retries itself.
    public convenience init(client: HTTPClient, retryPolicy: RetryPolicy = RetryPolicy()) {
        self.init(clients: HTTPClients(client: client), retryPolicy: retryPolicy)
    }

    /// An uploader on the clients of a downloader (the engine's: one connection pool).
    init(clients: HTTPClients, retryPolicy: RetryPolicy) {
        self.clients = clients
        self.retryPolicy = retryPolicy
    }

    /// Starts shutting the owned clients down and returns at once (usable in `defer`); does
    /// nothing for a client given to ``init(client:retryPolicy:)``.
    public func shutdown() { clients.shutdown() }

    /// Shuts the owned clients down and waits for them.
    public func shutdownGracefully() async throws { try await clients.shutdownGracefully() }

    /// Uploads `request.file` to `request.url`. See the type's documentation for tus resumes.
    ///
    /// - Parameters:
    ///   - request: the file, the URL and how to send it.
    ///   - uplink: the interface the upload was judged on (nil: whatever route the kernel
    ///     picks); connections are pooled per uplink, as ``Download/run(byteLimit:admit:uplink:progress:)`` says.
    ///   - progress: called from the uploading tasks, at most about every 50 ms, and once before
    ///     each wait between attempts (with ``UploadProgress/retryingAfter``).
    /// - Throws: ``TransferError``; `invalidURL`, and `io` for a file that is missing,
    ///   unreadable or not a regular file, before any traffic.
    public func upload(
        _ request: UploadRequest, uplink: String? = nil, progress: @escaping @Sendable (UploadProgress) -> Void = { _ in }
    ) async throws(TransferError) -> UploadResult {
        let target = try Self.validTarget(request)
        let lease = try clients.lease(for: target.transferURL, uplink: uplink)
        defer { lease.release() }
        let context = try prepare(request, target: target, client: lease.client, progress: progress)
        let claimed = active.withLock { $0.insert(context.key).inserted }
        guard claimed else {
            throw TransferError(.io, url: context.target.redacted, path: request.file, detail: "this file is already being uploaded to this URL")
        }
        defer { _ = active.withLock { $0.remove(context.key) } }
        switch request.mode {
        case .put: return try await uploadPlain(context, formField: nil)
        case .form(let field): return try await uploadPlain(context, formField: field)
        case .automatic: return try await uploadAutomatic(context)
        }
    }

    /// What uploading `request` would send, from local state only (no traffic): the file's
    /// size, and what remains after the offset a tus server last confirmed for it.
    /// - Throws: what ``upload(_:progress:)`` throws before any traffic.
    public static func estimate(_ request: UploadRequest) throws(TransferError) -> UploadEstimate {
        let target = try validTarget(request)
        let source = try openSource(request, target: target)
        let size = source.identity.size
        guard request.mode == .automatic, let directory = request.stateDirectory else { return UploadEstimate(size: size, remaining: size) }
        let file = UploadSource.absolutePath(request.file)
        let store = ResumeStore(directory: directory)
        let record = store.read(ResumeStore.key(file: file, url: target.storageKey))
        guard case .resume = ResumeDecision.decide(record: record, file: file, url: target.storageKey, source: source.identity), let record
        else { return UploadEstimate(size: size, remaining: size) }
        return UploadEstimate(size: size, remaining: size - min(max(record.offset, 0), size))
    }

    private func prepare(
        _ request: UploadRequest, target: UploadTarget, client: HTTPClient, progress: @escaping @Sendable (UploadProgress) -> Void
    ) throws(TransferError) -> UploadContext {
        let source = try Self.openSource(request, target: target)
        let tls = try HTTPClients.tlsConfiguration(caFile: request.caFile, url: target.transferURL)
        let file = UploadSource.absolutePath(request.file)
        return UploadContext(
            uploader: self, request: request, target: target, source: source, absolutePath: file,
            key: ResumeStore.key(file: file, url: target.storageKey),
            exchange: UploadExchange(client: client, readTimeout: request.readTimeout, url: target.transferURL, path: request.file),
            tls: tls, progress: progress
        )
    }

    private static func validTarget(_ request: UploadRequest) throws(TransferError) -> UploadTarget {
        guard let target = UploadTarget(request.url) else {
            throw TransferError(.invalidURL, url: UploadTarget.redact(request.url), detail: "only http and https URLs with a host are supported")
        }
        if case .form(let field) = request.mode, field.isEmpty {
            throw TransferError(.io, url: target.redacted, path: request.file, detail: "the form field name is empty")
        }
        return target
    }

    private static func openSource(_ request: UploadRequest, target: UploadTarget) throws(TransferError) -> UploadSource {
        do {
            return try UploadSource(path: request.file)
        } catch {
            throw error.transferError(url: target.redacted, path: request.file)
        }
    }
}

/// What this process sent for one (file, URL), over its calls.
struct UploadLedger: Sendable {
    var sent: Int64 = 0
    var resent: Int64 = 0
    /// tus: where the bytes handed over by an interrupted attempt ended; the next `HEAD` tells
    /// how many of them reached the server.
    var inFlightEnd: Int64?
    /// tus: the offset the server held when this process first asked.
    var resumedFrom: Int64?
    /// tus without a state directory: the resume record, kept in memory.
    var record: ResumeRecord?

    /// The server holds `offset` bytes: bytes handed over beyond it never arrived.
    mutating func serverHolds(_ offset: Int64) {
        if resumedFrom == nil { resumedFrom = offset }
        if let end = inFlightEnd, end > offset { resent += end - offset }
        inFlightEnd = nil
    }

    /// A new upload from byte 0: everything sent so far will be sent again.
    mutating func restart() {
        resent = sent
        resumedFrom = 0
        inFlightEnd = nil
        record = nil
    }
}
