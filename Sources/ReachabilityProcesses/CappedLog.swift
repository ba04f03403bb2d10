import CGNULibc
import Glibc

/// Where a command's standard output and error go when it has no terminal (a daemon's jobs): a
/// pipe this process reads, appending to a log file that never grows past ``limit`` bytes. When
/// a write would pass it, the file becomes `PATH.1` (replacing the previous one) and a new file
/// starts: at most twice the limit per command on disk, however much it prints.
///
/// The log is opened here, with mode 0600 and never through a symlink; the command gets only the
/// pipe's write end, as its descriptors 1 and 2.
///
/// Copied at most ``bytesPerSecond`` (after a burst of ``limit``): a command that prints faster
/// waits on its full pipe, as on a slow terminal, instead of keeping the daemon busy rewriting
/// its log (`yes` kept 65 % of a core rotating 10 MiB files).
final class CappedLog: Sendable {
    /// The sustained rate a command's output is copied at.
    static let bytesPerSecond: Int64 = 1 << 20
    let path: String
    let limit: Int64
    /// The pipe's write end, for the child; closed here once the child has it.
    let writeEnd: Int32
    private let readEnd: Int32

    /// Opens the log (appending) and the pipe; reading starts with ``startReading()``.
    init(path: String, limit: Int64) throws(CommandSpawnError) {
        self.path = path
        self.limit = max(limit, 4096)
        var ends: [Int32] = [0, 0]
        guard reach_pipe_cloexec(&ends) == 0 else { throw CommandSpawnError(command: path, errno: errno) }
        readEnd = ends[0]
        writeEnd = ends[1]
        let probe = Self.open(path)
        guard probe >= 0 else {
            let failure = errno
            close(readEnd)
            close(writeEnd)
            throw CommandSpawnError(command: path, errno: failure)
        }
        close(probe)
    }

    /// Starts copying, on a thread of its own that blocks in `read`; the write end is closed
    /// here (the child holds its own copies), so the copy ends when the command and everything
    /// it started have closed their output.
    func startReading() {
        close(writeEnd)
        let (readEnd, path, limit) = (self.readEnd, self.path, self.limit)
        WatcherThread.start {
            var file = Self.open(path)
            var buffer = [UInt8](repeating: 0, count: 65536)
            var allowance = OutputAllowance(burst: limit, perSecond: Self.bytesPerSecond)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(readEnd, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { break }
                file = Self.append(buffer[..<count], to: file, path: path, limit: limit)
                // Over the rate: not read until the allowance is back (the command waits).
                let wait = allowance.take(Int64(count), at: ContinuousClock.now)
                if wait > .zero { Self.sleep(wait) }
            }
            close(readEnd)
            if file >= 0 { close(file) }
        }
    }

    /// Stops reading (the child never started).
    func abandon() {
        close(writeEnd)
        close(readEnd)
    }

    /// Appends `bytes`, rotating first when they would take the file past `limit`; returns the
    /// descriptor to use next (a new one after a rotation; -1 when the log cannot be written,
    /// and the output is dropped rather than blocking the command).
    private static func append(_ bytes: ArraySlice<UInt8>, to descriptor: Int32, path: String, limit: Int64) -> Int32 {
        var descriptor = descriptor
        var info = stat()
        if descriptor >= 0, fstat(descriptor, &info) == 0, Int64(info.st_size) > 0, Int64(info.st_size) + Int64(bytes.count) > limit {
            close(descriptor)
            rename(path, path + ".1")
            descriptor = open(path)
        }
        guard descriptor >= 0 else { return -1 }
        var rest = bytes
        while !rest.isEmpty {
            let written = rest.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { break }  // a full file system: this chunk is lost, not the command
            rest = rest.dropFirst(written)
        }
        return descriptor
    }

    private static func sleep(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        var request = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
        var remaining = timespec()
        while nanosleep(&request, &remaining) != 0 && errno == EINTR { request = remaining }
    }

    private static func open(_ path: String) -> Int32 {
        Glibc.open(path, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0o600)
    }
}

/// A token bucket of bytes: ``burst`` at once, then ``perSecond``. Pure: time is given.
struct OutputAllowance: Sendable {
    let burst: Int64
    let perSecond: Int64
    private var tokens: Int64
    private var at: ContinuousClock.Instant?

    init(burst: Int64, perSecond: Int64) {
        self.burst = max(1, burst)
        self.perSecond = max(1, perSecond)
        tokens = self.burst
    }

    /// Takes `bytes` at `now`; how long to wait before the next read (zero: none).
    mutating func take(_ bytes: Int64, at now: ContinuousClock.Instant) -> Duration {
        if let at {
            let (seconds, attoseconds) = (now - at).components
            let earned = seconds * perSecond + Int64(Double(attoseconds) / 1e18 * Double(perSecond))
            tokens = min(burst, tokens + earned)
        }
        at = now
        tokens -= bytes
        guard tokens < 0 else { return .zero }
        return .nanoseconds(-tokens * 1_000_000_000 / perSecond)
    }
}
