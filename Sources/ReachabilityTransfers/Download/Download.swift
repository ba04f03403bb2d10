import ReachabilityCore
import NIOSSL
import Glibc
import Synchronization

/// One download, alive across pauses: it keeps its partial file open with the running SHA-256
/// of what it holds, its metadata and its counters, so a run after a pause (a cancelled run)
/// re-reads nothing; only a new process re-hashes the partial file. Made by
/// ``Downloader/prepare(_:)``; runs one at a time.
public final class Download: Sendable {
    /// The request as given to ``Downloader/prepare(_:)``.
    public let request: DownloadRequest
    /// The URL, with what is sent, shown and stored told apart.
    public let url: TransferURL
    let downloader: Downloader
    let paths: TransferPaths
    let directory: DirectoryHandle
    /// Out of line: 234 bytes inline, nil for most downloads, and thousands of them may wait.
    private let tlsConfiguration: OutOfLine<TLSConfiguration>?
    var tls: TLSConfiguration? { tlsConfiguration?.value }
    /// This download's hold on its destination (released when the last holder lets go).
    let claim: DownloadClaim
    let state = Mutex(DownloadState())

    init(
        downloader: Downloader, request: DownloadRequest, url: TransferURL, paths: TransferPaths, directory: DirectoryHandle,
        tls: TLSConfiguration?, claim: DownloadClaim
    ) {
        self.downloader = downloader
        self.request = request
        self.url = url
        self.paths = paths
        self.directory = directory
        tlsConfiguration = tls.map(OutOfLine.init)
        self.claim = claim
    }


    /// Where it stands: bytes on disk, the size when known, the counters.
    public var progress: DownloadProgress {
        state.withLock { state in
            DownloadProgress(
                bytesOnDisk: state.metadata?.completedBytes ?? state.part?.length ?? 0, totalBytes: state.metadata?.size, bytesReceivedThisRun: 0,
                bytesRefetched: state.refetched, attempt: state.attempts
            )
        }
    }

    /// Bytes received over every run of this download (pauses and retries included).
    public var bytesReceived: Int64 { state.withLock { $0.received } }

    /// Runs the download until it finishes, fails, is cancelled (a pause: everything is kept)
    /// or reaches `byteLimit`.
    ///
    /// - Parameters:
    ///   - byteLimit: body bytes this run may receive; when reached, what arrived is kept and
    ///     the run ends with ``TransferError/Kind-swift.struct/byteLimitReached``. How a size
    ///     limit on cellular holds whatever size the server declares or hides.
    ///   - admit: asked, once a response tells where the body starts and (when it does) how
    ///     many bytes remain, before the first byte is written: false ends the run with
    ///     `byteLimitReached`. How a transfer whose size is learned only now is judged again.
    ///   - uplink: the interface the run was judged on (``GateRun/network``'s interface name),
    ///     nil for whatever route the kernel picks. Connections are pooled per uplink, and a
    ///     host asked for over another uplink than before gets none of the old ones: a
    ///     keep-alive connection never carries a run over a route it was not judged on.
    ///   - progress: called from the running task, at most about every 50 ms or 4 MiB, and
    ///     before each wait between attempts (with the wait and its cause).
    public func run(
        byteLimit: Int64? = nil, admit: (@Sendable (_ remaining: Int64?) async -> Bool)? = nil, uplink: String? = nil,
        progress: @escaping @Sendable (DownloadProgress) -> Void = { _ in }
    ) async throws(TransferError) -> DownloadResult {
        do throws(FileError) {
            try directory.reopenIfParked()
        } catch {
            throw error.transferError(url: url.redacted)
        }
        let taken = state.withLock { state -> DownloadState? in
            guard !state.running else { return nil }
            state.running = true
            return state
        }
        guard var current = taken else {
            throw TransferError(.io, url: url.redacted, path: request.destination, detail: "this download is already running")
        }
        let lease: HTTPClients.Lease
        do {
            lease = try downloader.clients.lease(
                for: url, uplink: uplink, followsRedirects: !CredentialRedirects.needsOwnFollowing(request.headers.map(\.name)))
        } catch {
            state.withLock { $0.running = false }
            directory.park()
            throw error
        }
        defer { lease.release() }
        var run = DownloadRun(download: self, client: lease.client, state: current, byteLimit: byteLimit, admit: admit, progress: progress)
        let outcome: Result<DownloadResult, TransferError>
        do {
            outcome = .success(try await run.execute())
        } catch {
            run.checkpoint()
            outcome = .failure(error)
        }
        current = run.state
        current.running = false
        state.withLock { $0 = current }
        // Between runs (a pause, a wait for the network) only the partial file stays open.
        directory.park()
        return try outcome.get()
    }
}

/// What a ``Download`` keeps between runs.
struct DownloadState: Sendable {
    /// The partial file has been looked for (once per download; a new process re-hashes it).
    var loaded = false
    var part: PartFile?
    var metadata: PartialDownload?
    /// Body bytes received, over all runs.
    var received: Int64 = 0
    /// Bytes received again although already on disk (a server ignoring `Range`).
    var refetched: Int64 = 0
    var restarts = 0
    var attempts = 0
    /// The most bytes the partial file has held: only bytes past it are progress.
    var highWater: Int64 = 0
    /// Time spent waiting between failed attempts, over all runs.
    var retryWaited: Duration = .zero
    var running = false
}

extension Download {
    /// What an earlier run or process left, without hashing anything: the bytes in the partial
    /// file (the completed ranges of a segmented one) and the size its metadata records (when
    /// it belongs to this URL).
    public func knownProgress() -> JobProgress {
        let metadata = state.withLock { $0.metadata } ?? MetadataFile.read(paths.metadataName, in: directory)
        let onDisk = metadata?.completedBytes ?? state.withLock { $0.part?.length } ?? directory.status(of: paths.partName).map { Int64($0.st_size) } ?? 0
        let size = metadata?.url == url.storageKey ? metadata?.size : nil
        return JobProgress(completedBytes: size == nil ? 0 : onDisk, totalBytes: size)
    }

    /// A partial file (`DEST.part`) exists: an earlier run stopped before the end.
    public var hasPartialFile: Bool { directory.status(of: paths.partName) != nil }

    /// Removes the partial file and its metadata (a cancelled download). Not while running.
    public func discardPartial() {
        state.withLock { state in
            guard !state.running else { return }
            state.part = nil
            state.metadata = nil
            state.highWater = 0
            state.loaded = false
        }
        directory.remove(paths.partName)
        directory.remove(paths.metadataName)
        directory.sync()
    }
}
