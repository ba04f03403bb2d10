import FoundationEssentials
import Glibc

/// The command processes the daemon has running, one record per job in `children/` of the
/// state directory (`job-ID`: the process group's leader and its start time). After a `kill -9`
/// or a crash, the next start finds the groups the previous daemon left and ends them before
/// taking their jobs up again, so a command never runs twice at once. The start time (from
/// `/proc/PID/stat`) tells a leftover from an unrelated process that got the same pid.
struct CommandChildren: Sendable {
    let directory: String

    init(stateDirectory: String) { directory = stateDirectory + "/children" }

    /// Records the running command of job `id`.
    func record(job id: Int64, pid: Int32) {
        guard let started = Self.startTime(of: pid) else { return }
        try? StateDirectory.makePrivateSubdirectory(directory)
        let path = "\(directory)/job-\(id)"
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return }
        let line = Array("\(pid) \(started)\n".utf8)
        _ = line.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
    }

    /// The command of job `id` has ended.
    func forget(job id: Int64) { unlink("\(directory)/job-\(id)") }

    /// Ends every process group a previous daemon left running (SIGTERM, SIGKILL after `grace`)
    /// and removes the records; returns what it ended, for the log.
    func endLeftovers(grace: Duration = .seconds(5)) -> [(job: Int64, pid: Int32)] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return [] }
        var ended: [(job: Int64, pid: Int32)] = []
        for name in names where name.hasPrefix("job-") {
            let path = "\(directory)/\(name)"
            defer { unlink(path) }
            guard let job = Int64(name.dropFirst(4)), let text = try? String(contentsOfFile: path, encoding: .utf8) else { continue }
            let fields = text.split(whereSeparator: \.isWhitespace)
            guard fields.count == 2, let pid = Int32(fields[0]), pid > 1, let started = UInt64(fields[1]) else { continue }
            if end(pid: pid, started: started, grace: grace) { ended.append((job, pid)) }
        }
        return ended
    }

    /// Kills (SIGKILL) every recorded group still running, keeping the records: at shutdown, for
    /// commands that ignored SIGTERM past the daemon's stop grace (systemd allows 10 s).
    func killRunning() {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return }
        for name in names where name.hasPrefix("job-") {
            guard let text = try? String(contentsOfFile: "\(directory)/\(name)", encoding: .utf8) else { continue }
            let fields = text.split(whereSeparator: \.isWhitespace)
            guard fields.count == 2, let pid = Int32(fields[0]), pid > 1, let started = UInt64(fields[1]),
                Self.startTime(of: pid) == started
            else { continue }
            kill(-pid, SIGKILL)
        }
    }

    /// Ends the group led by `pid` if that pid is still the process started at `started`.
    private func end(pid: Int32, started: UInt64, grace: Duration) -> Bool {
        guard Self.startTime(of: pid) == started else { return false }
        kill(-pid, SIGTERM)
        kill(-pid, SIGCONT)  // a suspended group acts on SIGTERM only once continued
        let deadline = ContinuousClock.now + grace
        while ContinuousClock.now < deadline {
            if Self.startTime(of: pid) != started { return true }
            usleep(20_000)
        }
        if Self.startTime(of: pid) == started { kill(-pid, SIGKILL) }
        return true
    }

    /// Field 22 of `/proc/PID/stat` (clock ticks after boot); nil for no such process or a zombie.
    static func startTime(of pid: Int32) -> UInt64? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let close = stat.lastIndex(of: ")") else { return nil }
        // After "PID (COMM) ": state is field 3, start time field 22.
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 19, fields[0] != "Z" else { return nil }
        return UInt64(fields[19])
    }
}
