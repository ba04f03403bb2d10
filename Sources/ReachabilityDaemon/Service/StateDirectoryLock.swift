import Glibc
import ReachabilityCore

/// The daemon's claim on its state directory: `flock(2)` on `DIR/daemon.lock` for as long as
/// the daemon runs (the kernel drops it when the process ends, `kill -9` included). Two daemons
/// on one directory would run the same jobs twice; the second is refused, naming the first,
/// whose pid is written into the file.
///
/// `flock`, not `fcntl` locks: an `flock` conflicts between two open descriptions even in one
/// process, and it is never released by closing another descriptor of the same file.
final class StateDirectoryLock: Sendable {
    /// The lock file.
    let path: String
    private let descriptor: Int32

    private init(path: String, descriptor: Int32) {
        self.path = path
        self.descriptor = descriptor
    }

    /// Takes the lock on `directory` (which must exist), or throws: `conflict` naming the
    /// holder when another process has it, `storage` when the file cannot be used (a symlink,
    /// not a regular file).
    static func acquire(in directory: String) throws(QueueError) -> StateDirectoryLock {
        let path = directory + "/daemon.lock"
        // CLOEXEC: a command job must not inherit the lock (and keep it past the daemon).
        let fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            let reason = errno == ELOOP ? "it is a symlink" : String(cString: strerror(errno))
            throw .storage("cannot open \(path): \(reason)")
        }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            close(fd)
            throw .storage("\(path) is not a regular file")
        }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            let code = errno
            let holder = code == EWOULDBLOCK ? holderPID(fd) : nil
            close(fd)
            guard code == EWOULDBLOCK else { throw .storage("cannot lock \(path): \(String(cString: strerror(code)))") }
            let who = holder.map { "pid \($0)" } ?? "pid unknown"
            throw .conflict("another reach daemon (\(who)) is using the state directory \(directory) (it holds \(path))")
        }
        let text = Array("\(getpid())\n".utf8)
        _ = ftruncate(fd, 0)
        _ = pwrite(fd, text, text.count, 0)
        return StateDirectoryLock(path: path, descriptor: fd)
    }

    /// The pid the holder wrote; it writes just after locking, so an empty file is read again
    /// for a short while.
    private static func holderPID(_ fd: Int32) -> Int32? {
        for _ in 0..<20 {
            var buffer = [UInt8](repeating: 0, count: 32)
            let count = pread(fd, &buffer, buffer.count, 0)
            if count > 0, let pid = Int32(String(decoding: buffer.prefix(count), as: UTF8.self).trimmingBlanks()) { return pid }
            usleep(10_000)
        }
        return nil
    }

    /// Releases the lock (the file stays: removing it would race a daemon that just opened it).
    func unlock() {
        close(descriptor)
    }
}
