import Glibc

/// The hooks in a dispatcher directory and whether each may run, by NetworkManager-dispatcher's
/// rule: a regular executable file owned by root or the daemon's user, writable by nobody else,
/// not set-user-ID or set-group-ID, in a directory nobody else can change. Symbolic links are
/// not followed (one to `/dev/null` disables a hook, quietly), and hidden names and packaging
/// leftovers (`~`, `.dpkg-old`, …) are skipped, as `run-parts` does.
enum DispatcherScripts {
    /// What is known of one directory entry (`lstat`).
    struct Entry: Sendable, Hashable {
        var name: String
        var isRegular: Bool
        var isSymbolicLink: Bool
        var linkTarget: String?
        var owner: UInt32
        var mode: UInt32
    }

    /// Whether an entry runs.
    enum Verdict: Sendable, Hashable {
        case run
        /// Not a hook (hidden, a leftover, disabled): no warning.
        case skip
        /// A hook that must not run, with the warning to log.
        case refuse(String)
    }

    static let leftoverSuffixes = ["~", ".dpkg-old", ".dpkg-new", ".dpkg-dist", ".dpkg-tmp", ".ucf-old", ".ucf-new", ".ucf-dist", ".rpmsave", ".rpmnew", ".swp"]

    /// The verdict on `entry` for a daemon running as `euid`. Pure.
    static func verdict(_ entry: Entry, euid: UInt32) -> Verdict {
        if entry.name.hasPrefix(".") || leftoverSuffixes.contains(where: entry.name.hasSuffix) { return .skip }
        if entry.isSymbolicLink {
            if entry.linkTarget == "/dev/null" { return .skip }
            return .refuse("\(entry.name): a symbolic link (not followed); install the hook itself")
        }
        guard entry.isRegular else { return .refuse("\(entry.name): not a regular file") }
        guard entry.owner == 0 || entry.owner == euid else {
            return .refuse("\(entry.name): owned by uid \(entry.owner), not by root or the daemon's uid \(euid)")
        }
        guard entry.mode & 0o022 == 0 else {
            return .refuse("\(entry.name): writable by its group or others (mode \(String(entry.mode & 0o7777, radix: 8)))")
        }
        guard entry.mode & 0o6000 == 0 else { return .refuse("\(entry.name): set-user-ID or set-group-ID") }
        guard entry.mode & 0o100 != 0 else { return .refuse("\(entry.name): not executable by its owner") }
        return .run
    }

    /// Whether `directory` itself may hold hooks: a real directory of root or `euid`, writable
    /// by nobody else. Nil when it may; the warning otherwise. Pure.
    static func directoryProblem(isDirectory: Bool, isSymbolicLink: Bool, owner: UInt32, mode: UInt32, euid: UInt32) -> String? {
        if isSymbolicLink { return "a symbolic link, not a directory" }
        if !isDirectory { return "not a directory" }
        if owner != 0 && owner != euid { return "owned by uid \(owner), not by root or uid \(euid)" }
        if mode & 0o022 != 0 { return "writable by its group or others (mode \(String(mode & 0o7777, radix: 8)))" }
        return nil
    }

    /// Whether an ancestor of the hook directory keeps others from replacing it: a directory
    /// of root or `euid`, writable by nobody else unless sticky (then others cannot rename what
    /// is not theirs). Nil when it does; the warning otherwise. Pure.
    static func ancestorProblem(_ path: String, isDirectory: Bool, owner: UInt32, mode: UInt32, euid: UInt32) -> String? {
        if !isDirectory { return "\(path) is not a directory" }
        if owner != 0 && owner != euid { return "its parent \(path) is owned by uid \(owner), not by root or uid \(euid)" }
        if mode & 0o022 != 0 && mode & UInt32(S_ISVTX) == 0 {
            return "its parent \(path) is writable by its group or others (mode \(String(mode & 0o7777, radix: 8))): they could replace it"
        }
        return nil
    }

    /// Opens `directory` for a round of hooks: nil when it does not exist; a warning when it,
    /// or any directory above it, could be changed by someone other than root and the daemon's
    /// user. Every hook of the round is then checked and started through this descriptor, so
    /// the directory swapped while a hook runs changes nothing.
    static func open(_ directory: String, euid: UInt32 = geteuid()) -> Result<HookDirectory, ListError>? {
        guard let real = realpath(directory, nil) else {
            return errno == ENOENT ? nil : .failure(ListError(message: "cannot inspect \(directory): \(String(cString: strerror(errno)))"))
        }
        let resolved = String(cString: real)
        free(real)
        var info = stat()
        guard lstat(directory, &info) == 0 else {
            return .failure(ListError(message: "cannot inspect \(directory): \(String(cString: strerror(errno)))"))
        }
        if info.st_mode & S_IFMT == S_IFLNK {
            return .failure(ListError(message: "refusing every hook in \(directory): a symbolic link, not a directory"))
        }
        var ancestor = resolved
        while let slash = ancestor.lastIndex(of: "/") {
            ancestor = slash == ancestor.startIndex ? "/" : String(ancestor[..<slash])
            var above = stat()
            guard lstat(ancestor, &above) == 0 else {
                return .failure(ListError(message: "cannot inspect \(ancestor): \(String(cString: strerror(errno)))"))
            }
            if let problem = ancestorProblem(
                ancestor, isDirectory: above.st_mode & S_IFMT == S_IFDIR, owner: above.st_uid, mode: above.st_mode, euid: euid)
            {
                return .failure(ListError(message: "refusing every hook in \(directory): \(problem)"))
            }
            if ancestor == "/" { break }
        }
        let first = Glibc.open(resolved, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard first >= 0 else {
            return .failure(ListError(message: "cannot open \(directory): \(String(cString: strerror(errno)))"))
        }
        // Above the child's 0-3, so making it a hook's 3 is a real dup2 (which clears
        // close-on-exec), never a no-op on the same number.
        let descriptor = fcntl(first, F_DUPFD_CLOEXEC, 10)
        close(first)
        guard descriptor >= 0 else { return .failure(ListError(message: "cannot open \(directory)")) }
        let opened = HookDirectory(descriptor: descriptor, path: directory)
        guard fstat(descriptor, &info) == 0 else { return .failure(ListError(message: "cannot inspect \(directory)")) }
        if let problem = directoryProblem(
            isDirectory: info.st_mode & S_IFMT == S_IFDIR, isSymbolicLink: false, owner: info.st_uid, mode: info.st_mode, euid: euid)
        {
            return .failure(ListError(message: "refusing every hook in \(directory): \(problem)"))
        }
        return .success(opened)
    }

    /// The entries of `directory` in name order (byte order, as `run-parts` and NetworkManager
    /// sort them); nil when it does not exist; an error's words when it cannot be used.
    static func list(_ directory: String, euid: UInt32 = geteuid()) -> Result<[Entry], ListError>? {
        open(directory, euid: euid).map { $0.map { $0.entries() } }
    }

    /// Opens hook `name` of `directory` (not following a link) and judges the file it opened:
    /// its descriptor when it may run (the caller closes it), the verdict otherwise.
    static func openHook(_ name: String, in directory: HookDirectory, euid: UInt32 = geteuid()) -> HookOpening {
        let opened = openat(directory.descriptor, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard opened >= 0 else {
            if errno == ELOOP { return .refused(.refuse("\(name): a symbolic link (not followed); install the hook itself")) }
            return .refused(.refuse("\(name): cannot open it: \(String(cString: strerror(errno)))"))
        }
        let descriptor = opened
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            close(descriptor)
            return .refused(.refuse("\(name): cannot inspect it"))
        }
        let entry = Entry(
            name: name, isRegular: status.st_mode & S_IFMT == S_IFREG, isSymbolicLink: false, linkTarget: nil, owner: status.st_uid,
            mode: status.st_mode)
        let verdict = verdict(entry, euid: euid)
        guard verdict == .run else {
            close(descriptor)
            return .refused(verdict)
        }
        return .opened(descriptor)
    }

    /// What ``openHook(_:in:euid:)`` gives.
    enum HookOpening {
        case opened(Int32)
        case refused(Verdict)
    }

    struct ListError: Error, Sendable, Hashable {
        var message: String
    }
}

/// A hook directory opened for one round (``DispatcherScripts/open(_:euid:)``); closed with it.
final class HookDirectory {
    let descriptor: Int32
    /// The path it was opened by, for messages.
    let path: String

    init(descriptor: Int32, path: String) {
        self.descriptor = descriptor
        self.path = path
    }

    deinit { close(descriptor) }

    /// Its entries in name order (byte order, as `run-parts` and NetworkManager sort them).
    func entries() -> [DispatcherScripts.Entry] {
        let copy = dup(descriptor)
        guard copy >= 0, let stream = fdopendir(copy) else { return [] }
        defer { closedir(stream) }
        rewinddir(stream)
        var entries: [DispatcherScripts.Entry] = []
        while let item = readdir(stream) {
            let name = withUnsafeBytes(of: item.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name == "." || name == ".." { continue }
            var status = stat()
            guard fstatat(dirfd(stream), name, &status, AT_SYMLINK_NOFOLLOW) == 0 else { continue }
            let kind = status.st_mode & S_IFMT
            var target: String?
            if kind == S_IFLNK {
                var buffer = [CChar](repeating: 0, count: 4097)
                let count = readlinkat(dirfd(stream), name, &buffer, 4096)
                if count > 0 { target = String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self) }
            }
            entries.append(DispatcherScripts.Entry(
                name: name, isRegular: kind == S_IFREG, isSymbolicLink: kind == S_IFLNK, linkTarget: target, owner: status.st_uid,
                mode: status.st_mode))
        }
        return entries.sorted { Array($0.name.utf8).lexicographicallyPrecedes(Array($1.name.utf8)) }
    }
}
