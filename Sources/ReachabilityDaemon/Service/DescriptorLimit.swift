import Glibc
import ReachabilityTransfers

/// The descriptors the daemon may hold at once, and the soft `RLIMIT_NOFILE` that allows them.
///
/// systemd gives a service a soft limit of 1,024 (and a hard one of 524,288), expecting a
/// program that needs more to raise its own soft limit. The daemon's need follows from its
/// settings: every running transfer may hold up to 16 connections, its file, its directory and
/// its resume record; each listener up to ``ControlServer/Limits/maxConnections`` clients. With
/// the defaults (8 transfers) it fits in 1,024 and nothing changes; `--max-running 256` needs
/// about 5,600, past which a transfer would fail with "Too many open files". The soft limit is raised only as far as the need, so commands (which inherit it)
/// keep the usual 1,024 unless the daemon's own settings call for more.
struct DescriptorLimit: Sendable, Hashable {
    /// Descriptors the daemon holds whatever it runs: the database's three connections and
    /// their files, netlink and epoll, the runtime's event and timer descriptors, the state
    /// lock, standard streams (31 are open with 10,000 waiting jobs), with room to spare.
    static let base = 64
    /// What one running transfer may hold: its connections, part file, directory and record.
    static let perTransfer = DownloadRequest.connectionRange.upperBound + 4

    /// The soft limit to set, when it must be raised.
    var raiseTo: Int?
    /// Set when even the hard limit is below the need: what to tell the operator.
    var shortfall: String?

    /// The need for `maxRunning` transfers and `listeners` listeners of `connectionsPerListener`.
    static func need(maxRunning: Int, listeners: Int, connectionsPerListener: Int) -> Int {
        base + maxRunning * perTransfer + listeners * connectionsPerListener
    }

    /// What to do about limits `soft` and `hard` for `need` (a pure decision).
    static func plan(need: Int, soft: Int, hard: Int) -> DescriptorLimit {
        guard need > soft else { return DescriptorLimit() }
        let target = min(need, hard)
        let shortfall = need > hard
            ? "the settings may need \(need) descriptors at once, but the hard limit is \(hard): raise it (LimitNOFILE= in the unit, ulimit -Hn) or lower --max-running"
            : nil
        return DescriptorLimit(raiseTo: target > soft ? target : nil, shortfall: shortfall)
    }

    /// Reads this process's limits, raises the soft one as ``plan(need:soft:hard:)`` says, and
    /// returns what to log (nil when nothing was to be done).
    static func apply(need: Int) -> String? {
        var limits = rlimit()
        guard getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limits) == 0 else { return nil }
        // RLIM_INFINITY and anything past Int's range count as unlimited.
        let hard = limits.rlim_max > rlim_t(Int.max) ? Int.max : Int(limits.rlim_max)
        let soft = limits.rlim_cur > rlim_t(Int.max) ? Int.max : Int(limits.rlim_cur)
        let plan = plan(need: need, soft: soft, hard: hard)
        var notes: [String] = []
        if let target = plan.raiseTo {
            limits.rlim_cur = rlim_t(target)
            if setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limits) == 0 {
                notes.append("raised the open-descriptor limit from \(soft) to \(target)")
            } else {
                notes.append("cannot raise the open-descriptor limit from \(soft) to \(target): \(String(cString: strerror(errno)))")
            }
        }
        if let shortfall = plan.shortfall { notes.append(shortfall) }
        return notes.isEmpty ? nil : notes.joined(separator: "; ")
    }
}
