import Glibc

/// The file system as the client that adds a job sees it, through `/proc/PID/root` of its
/// process (from the connection's peer credentials): a path the client names must be the same
/// file for the daemon, or the job would run somewhere else, or not at all. Under systemd's
/// `PrivateTmp=yes` the service's `/tmp` is its own: a command added from a shell in
/// `/tmp/build` would otherwise be accepted and then fail with "cannot run '/bin/sh'", and a
/// download into `/tmp` would land where nobody finds it.
///
/// When the daemon may not look into the client's root (another user, `ptrace` rules) or the
/// client is gone, nothing is compared: the job is checked as before.
public struct ClientFileView: Sendable {
    /// `/proc/PID/root`: the client's root directory, as the kernel resolves it for that process.
    let root: String

    /// The view of the process `pid`; nil when the daemon cannot look into its root.
    public init?(pid: Int32) {
        guard pid > 0 else { return nil }
        root = "/proc/\(pid)/root"
        var info = stat()
        guard stat(root + "/", &info) == 0 else { return nil }
    }

    /// A view of another root directory (for tests).
    init(root: String) { self.root = root }

    /// Refuses `path` (absolute) when the client sees a file there and the daemon sees none, or
    /// another one (device and inode differ). What neither sees is left to the job itself (a
    /// download's directory, say, may be created later... or fail with its own message).
    func check(_ path: String, field: String) throws(QueueError) {
        var theirs = stat()
        guard stat(root + path, &theirs) == 0 else { return }
        var ours = stat()
        let seen = stat(path, &ours) == 0
        guard !seen || ours.st_dev != theirs.st_dev || ours.st_ino != theirs.st_ino else { return }
        let what = seen ? "is another file for the daemon than for you" : "does not exist for the daemon"
        throw .invalidJob(
            "\(field): '\(path.prefix(200))' \(what): the daemon sees another file system there (under systemd, "
                + "PrivateTmp=yes gives the service its own /tmp and /var/tmp); use a directory it shares, "
                + "such as one listed in the unit's ReadWritePaths=")
    }
}

extension QueueJobSpec {
    /// Every path of the job the daemon will use, checked against the client's view: a
    /// download's directory, an upload's file, a command's working directory, a CA file.
    func checkVisible(to client: ClientFileView) throws(QueueError) {
        if let download {
            if let destination = download.destination { try client.check(Self.directory(of: destination), field: "destination") }
            if let caFile = download.caFile { try client.check(caFile, field: "caFile") }
        }
        if let upload {
            try client.check(upload.file, field: "file")
            if let caFile = upload.caFile { try client.check(caFile, field: "caFile") }
        }
        if let directory = command?.workingDirectory { try client.check(directory, field: "workingDirectory") }
    }

    /// Everything before the last `/` ("/" for a file at the root).
    static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return "/" }
        return String(path[..<slash])
    }
}
