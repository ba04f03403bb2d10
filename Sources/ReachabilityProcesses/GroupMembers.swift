import Glibc

/// The live processes of a process group, from /proc. `kill(-group, 0)` also counts zombies
/// that init has yet to reap: they need no signal, and must neither delay a shutdown nor be
/// reported as killed.
enum GroupMembers {
    /// Whether a process of `group` that is not a zombie exists; true when /proc cannot be read
    /// (then the caller's signals decide).
    static func anyAlive(in group: pid_t) -> Bool {
        guard let directory = opendir("/proc") else { return true }
        defer { closedir(directory) }
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { bytes in
                String(decoding: bytes.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            guard let pid = Int32(name), let (state, processGroup) = status(of: pid) else { continue }
            if processGroup == group && state != UInt8(ascii: "Z") && state != UInt8(ascii: "X") { return true }
        }
        return false
    }

    /// The state letter and process group of `pid`, from `/proc/PID/stat`.
    private static func status(of pid: Int32) -> (state: UInt8, group: pid_t)? {
        let descriptor = open("/proc/\(pid)/stat", O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var buffer = [UInt8](repeating: 0, count: 512)
        let count = read(descriptor, &buffer, buffer.count)
        guard count > 0 else { return nil }
        // `PID (COMM) STATE PPID PGRP …`: COMM may hold spaces and parentheses.
        let text = buffer[0..<count]
        guard let close = text.lastIndex(of: UInt8(ascii: ")")) else { return nil }
        let fields = text[(close + 1)...].split(separator: UInt8(ascii: " "))
        guard fields.count > 2, let state = fields[0].first,
            let group = Int32(String(decoding: fields[2], as: UTF8.self))
        else { return nil }
        return (state, group)
    }
}
