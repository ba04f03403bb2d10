import Glibc
import FoundationEssentials
import ReachabilityCore
import ReachabilityTransfers

/// What the queue keeps in memory about one job.
struct QueueEntry: Sendable {
    // First, so a list that finds every job's JSON cached reads one cache line of each entry
    // (the entries are out of line, in no order the list walks).
    /// The job's JSON as last encoded (for lists), while the job is unchanged.
    var encoded: [UInt8]?
    /// Its summary's JSON, likewise.
    var encodedSummary: [UInt8]?
    /// Bumped on every change; the store writes only newer versions.
    var version = 0
    /// The job as shown and stored.
    var job: QueueJob
    /// The spec it runs when that is not the stored one (its credentials, never stored), out of
    /// line: most jobs have none, and a second spec inline was 313 of an entry's 993 bytes.
    private var ownRunSpec: OutOfLine<QueueJobSpec>?
    /// Its credentials were kept in memory only and the daemon restarted: it cannot run.
    private var credentialsLost = false
    /// A timer waiting for `notBefore`.
    var task: Task<Void, Never>?
    /// The engine holds it (submitted in this process).
    var inEngine = false
    /// The file a download in the engine writes (its directory's device and inode, and its
    /// name): a second job into the same file, by whatever path, waits for this one.
    var destinationKey: DestinationKey?
    /// Restored from the database at start: a download may have finished just before the stop.
    var restored = false
    /// The job's transferred bytes before its current engine run.
    var transferredBase: Int64 = 0
    /// Bytes the current engine run had moved at the last event.
    var engineTransferred: Int64 = 0
    /// When progress was last written to the database.
    var checkpointed: ContinuousClock.Instant?
    /// Since when it is paused, for the paused-time metric.
    var pausedSince: ContinuousClock.Instant?

    /// An entry for `job`, which runs `runSpec` (nil: its credentials were lost).
    init(job: QueueJob, runSpec: QueueJobSpec?) {
        self.job = job
        if let runSpec {
            if runSpec != job.spec { ownRunSpec = OutOfLine(runSpec) }
        } else {
            credentialsLost = true
        }
    }

    /// The spec it runs, with its credentials; nil when they were lost (a restart).
    var runSpec: QueueJobSpec? { credentialsLost ? nil : ownRunSpec?.value ?? job.spec }

    var isUserPaused: Bool { job.state == .paused && job.reason?.code == "pausedByUser" }
}

extension QueueJobSpec {
    /// The engine job this spec describes (downloads and uploads); nil for a command.
    func transferJob(uploadStateDirectory: String) -> TransferJob? {
        let attempts = maxAttempts ?? Self.defaultMaxAttempts
        let priority = priority ?? .normal
        if let download, let destination = download.destination {
            let headers = (try? QueueHeaders.parse(download.headers ?? [], reserved: DownloadSpec.reservedHeaders)) ?? []
            let request = DownloadRequest(
                url: download.url, destination: destination, expectedSHA256: download.sha256?.lowercased(), caFile: download.caFile,
                maxAttempts: attempts, headers: headers, connections: download.connections ?? 1)
            return .download(request, policy: policy, priority: priority)
        }
        if let upload {
            let headers = (try? QueueHeaders.parse(upload.headers ?? [], reserved: UploadSpec.reservedHeaders)) ?? []
            let request = UploadRequest(
                file: upload.file, url: upload.url, mode: upload.form.map { .form(field: $0) } ?? .automatic, headers: headers,
                caFile: upload.caFile, maxAttempts: attempts, stateDirectory: uploadStateDirectory)
            return .upload(request, policy: policy, priority: priority)
        }
        return nil
    }
}

/// A destination file by what it is, not how it is spelled: `/srv/a/f` and `/srv/./b/../a/f`,
/// or a path through a symbolic link, are one key.
struct DestinationKey: Sendable, Hashable {
    var device: UInt64
    var inode: UInt64
    var name: String

    /// The key of `path`'s file; nil when its directory cannot be examined (the download says
    /// why when it runs).
    init?(path: String) {
        guard let slash = path.lastIndex(of: "/") else { return nil }
        let directory = slash == path.startIndex ? "/" : String(path[..<slash])
        var info = stat()
        guard stat(directory, &info) == 0 else { return nil }
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
        name = String(path[path.index(after: slash)...])
    }
}
