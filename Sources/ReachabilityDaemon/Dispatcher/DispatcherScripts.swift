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

    /// The entries of `directory` in name order (byte order, as `run-parts` and NetworkManager
    /// sort them); nil when it does not exist; an error's words when it cannot be used.
    static func list(_ directory: String, euid: UInt32 = geteuid()) -> Result<[Entry], ListError>? {
        var info = stat()
        guard lstat(directory, &info) == 0 else {
            return errno == ENOENT ? nil : .failure(ListError(message: "cannot inspect \(directory): \(String(cString: strerror(errno)))"))
        }
        if let problem = directoryProblem(
            isDirectory: info.st_mode & S_IFMT == S_IFDIR, isSymbolicLink: info.st_mode & S_IFMT == S_IFLNK, owner: info.st_uid,
            mode: info.st_mode, euid: euid)
        {
            return .failure(ListError(message: "refusing every hook in \(directory): \(problem)"))
        }
        guard let stream = opendir(directory) else {
            return .failure(ListError(message: "cannot read \(directory): \(String(cString: strerror(errno)))"))
        }
        defer { closedir(stream) }
        var entries: [Entry] = []
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
            entries.append(Entry(
                name: name, isRegular: kind == S_IFREG, isSymbolicLink: kind == S_IFLNK, linkTarget: target, owner: status.st_uid,
                mode: status.st_mode))
        }
        return .success(entries.sorted { Array($0.name.utf8).lexicographicallyPrecedes(Array($1.name.utf8)) })
    }

    struct ListError: Error, Sendable, Hashable {
        var message: String
    }
}
