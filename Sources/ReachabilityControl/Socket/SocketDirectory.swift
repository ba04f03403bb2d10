import Glibc

/// The directory holding the control socket. Whoever can change its entries can replace the
/// socket (and a root daemon would then serve, or remove, what they put there), so it must be a
/// real directory of the daemon's user that nobody else can write to. Created when missing (0700,
/// or 0755 for a socket every user may reach); only the last component is created, its parent
/// must exist.
enum SocketDirectory {
    static func prepare(_ directory: String, mode: UInt32 = 0o700) throws(ControlServerError) {
        if let status = try FileStatus.of(directory) {
            try check(status, directory)
            return
        }
        // The umask can only remove permissions: the new directory is never wider than `mode`.
        guard mkdir(directory, mode) == 0 else {
            let code = errno
            if code == EEXIST, let status = try FileStatus.of(directory) {
                // Created by someone else meanwhile: as good as any existing directory, if safe.
                try check(status, directory)
                return
            }
            if code == ENOENT {
                throw ControlServerError(
                    .unsafeDirectory, path: directory, "cannot create \(directory) for the control socket: its parent directory does not exist"
                )
            }
            throw .system("create the socket directory", path: directory, errorNumber: code)
        }
        try restoreOwnerPermissions(directory, mode: mode)
    }

    /// A umask that removes owner bits (0277) would leave a directory the daemon cannot use:
    /// set exactly `mode`, through a descriptor opened without following links, so what changes
    /// is the directory just checked even if its name were swapped meanwhile.
    private static func restoreOwnerPermissions(_ directory: String, mode: UInt32) throws(ControlServerError) {
        let descriptor = open(directory, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else { throw .system("open the socket directory", path: directory) }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw .system("inspect", path: directory) }
        try check(FileStatus(raw: info), directory)
        guard fchmod(descriptor, mode) == 0 else { throw .system("set the mode of", path: directory) }
    }

    static func check(_ status: FileStatus, _ directory: String) throws(ControlServerError) {
        func refuse(_ problem: String) -> ControlServerError {
            ControlServerError(.unsafeDirectory, path: directory, "refusing to put the control socket in \(directory): \(problem)")
        }
        guard !status.isSymbolicLink else { throw refuse("it is a symbolic link, not a directory") }
        guard status.isDirectory else { throw refuse("it is \(status.typeDescription), not a directory") }
        let euid = geteuid()
        guard status.owner == euid else { throw refuse("it is owned by uid \(status.owner), not by uid \(euid) running the daemon") }
        guard status.permissions & 0o022 == 0 else {
            throw refuse("it is writable by its group or others (mode \(octal(status.permissions))); at most 0755 is allowed")
        }
    }
}
