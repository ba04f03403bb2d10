import FoundationEssentials

/// A process as `/proc/PID/stat` shows it: for tests that check what signals did to a command
/// and its process group (stopped, running, gone), without `ps`.
public struct ProcessProbe: Sendable, Hashable {
    /// The process ID.
    public let pid: Int32
    /// `R` running, `S` sleeping, `T` stopped, `Z` zombie, …
    public let state: Character
    /// The parent's process ID.
    public let parent: Int32
    /// The process group ID.
    public let group: Int32
    /// The session ID.
    public let session: Int32
    /// The foreground process group of its controlling terminal (-1 without one).
    public let terminalForegroundGroup: Int32

    /// The process now; nil when there is none (gone and reaped).
    public init?(_ pid: Int32) {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = text.lastIndex(of: ")")
        else { return nil }
        // The command name (field 2) may hold spaces and parentheses: fields count from the last ')'.
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 6, let state = fields[0].first, let parent = Int32(fields[1]), let group = Int32(fields[2]),
            let session = Int32(fields[3]), let foreground = Int32(fields[5])
        else { return nil }
        self.pid = pid
        self.state = state
        self.parent = parent
        self.group = group
        self.session = session
        terminalForegroundGroup = foreground
    }

    /// Stopped by a signal (`T`; not `t`, a tracing stop).
    public var isStopped: Bool { state == "T" }

    /// Whether the process is gone: reaped (no entry) or a zombie awaiting its parent.
    public static func isGone(_ pid: Int32) -> Bool {
        guard let probe = ProcessProbe(pid) else { return true }
        return probe.state == "Z" || probe.state == "X"
    }

    /// Polls every 10 ms until `condition` holds for `pid` (nil once it is gone), at most
    /// `bound`; returns whether it held. For tests: a bounded wait, not a timing assertion.
    public static func wait(for pid: Int32, bound: Duration = .seconds(20), until condition: (ProcessProbe?) -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + bound
        while ContinuousClock.now < deadline {
            if condition(ProcessProbe(pid)) { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return condition(ProcessProbe(pid))
    }
}
