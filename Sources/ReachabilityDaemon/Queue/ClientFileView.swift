import Glibc
import ReachabilityLinux

/// The file system as the client that adds a job sees it, through `/proc/PID/root` of its
/// process (from the connection's peer credentials): a path the client names must be the same
/// file for the daemon, or the job would run somewhere else, or not at all. Under systemd's
/// `PrivateTmp=yes` the service's `/tmp` is its own: a command added from a shell in
/// `/tmp/build` would otherwise be accepted and then fail with "cannot run '/bin/sh'", and a
/// download into `/tmp` would land where nobody finds it.
///
/// What a job cannot run without (an upload's file, a command's working directory) must exist
/// when it is added, as curl refuses `-T missing` at once: the answer is a clear error now, not a
/// job that fails whenever its network comes. When the daemon may not look into the client's
/// root (the client is another user, or holds capabilities the daemon lacks, as a root shell
/// does for the packaged unit, which keeps only CAP_CHOWN and CAP_FOWNER: the kernel's ptrace
/// rules), the same rule holds, and the message says both what it means and what it may mean.
public struct ClientFileView: Sendable {
    /// `/proc/PID/root`: the client's root directory as the kernel resolves it for that
    /// process; nil when the daemon may not look into it.
    let root: String?

    /// The view of the process `pid` (its root when the daemon may look into it).
    public init(pid: Int32) {
        var info = stat()
        let candidate = "/proc/\(pid)/root"
        root = pid > 0 && stat(candidate + "/", &info) == 0 ? candidate : nil
    }

    /// A view of another root directory, or none (for tests).
    init(root: String?) { self.root = root }

    /// Refuses `path` (absolute) when the client sees a file there and the daemon sees none, or
    /// another one (device and inode differ), and, when `mustExist`, when the daemon sees
    /// nothing there. What the job may create (a download's directory is checked when it runs)
    /// and neither side sees is left to the job.
    func check(_ path: String, field: String, mustExist: Bool) throws(QueueError) {
        var ours = stat()
        let seen = stat(path, &ours) == 0
        let quoted = "\(field): '\(path.prefix(200))'"
        guard let root else {
            guard mustExist && !seen else { return }
            throw .invalidJob("\(quoted) does not exist for the daemon (if it exists for you, \(Self.anotherFileSystem))")
        }
        var theirs = stat()
        guard stat(root + path, &theirs) == 0 else {
            guard mustExist && !seen else { return }
            throw .invalidJob("\(quoted) does not exist")
        }
        guard !seen || ours.st_dev != theirs.st_dev || ours.st_ino != theirs.st_ino else { return }
        let what = seen ? "is another file for the daemon than for you" : "does not exist for the daemon"
        throw .invalidJob("\(quoted) \(what): \(Self.anotherFileSystem)")
    }

    /// Refuses a download's `directory` that exists for the daemon but that the daemon may not
    /// create files in (a user's daemon asked by root for `-o /root/x.bin`): `reach get` refuses
    /// it at once too, and a job accepted now would only fail when its network comes. Judged
    /// with the daemon's effective ids and capabilities; a directory that does not exist is
    /// left to the job.
    static func checkWritable(_ directory: String, field: String) throws(QueueError) {
        var info = stat()
        guard stat(directory, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else { return }
        guard faccessat(AT_FDCWD, directory, W_OK | X_OK, AT_EACCESS) != 0 else { return }
        let cause = String(cString: strerror(errno))
        throw .invalidJob(
            "\(field): the daemon (uid \(geteuid())) may not create files in '\(directory.prefix(200))': \(cause); "
                + "choose a directory its user can write, or run the daemon as a user who can")
    }

    static let anotherFileSystem =
        "the daemon sees another file system there (under systemd, PrivateTmp=yes gives the service its own "
        + "/tmp and /var/tmp); use a directory it shares, such as one listed in the unit's ReadWritePaths="
}

extension QueueJobSpec {
    /// Every path of the job the daemon will use, checked against the client's view: a
    /// download's directory, an upload's file, a command's working directory, a CA file.
    func checkVisible(to client: ClientFileView) throws(QueueError) {
        if let download {
            if let destination = download.destination {
                try client.check(FileSystem.parent(destination), field: "destination", mustExist: false)
                try ClientFileView.checkWritable(FileSystem.parent(destination), field: "destination")
            }
            if let caFile = download.caFile { try client.check(caFile, field: "caFile", mustExist: false) }
        }
        if let upload {
            try client.check(upload.file, field: "file", mustExist: true)
            if let caFile = upload.caFile { try client.check(caFile, field: "caFile", mustExist: false) }
        }
        if let directory = command?.workingDirectory { try client.check(directory, field: "workingDirectory", mustExist: true) }
    }
}
