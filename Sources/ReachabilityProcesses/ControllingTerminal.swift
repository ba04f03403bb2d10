import Glibc

/// This process's controlling terminal, for lending it to a command's process group and taking
/// it back, as a shell does for its foreground jobs: only the terminal's foreground group may
/// read it, and it is the group that Ctrl-C and Ctrl-Z signal.
final class ControllingTerminal: Sendable {
    /// An open descriptor of `/dev/tty` (close-on-exec: commands get the terminal through their
    /// standard descriptors, not this one).
    let descriptor: Int32

    private init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    deinit { close(descriptor) }

    /// The controlling terminal, or nil when this process has none (a service, `setsid`).
    static func open() -> ControllingTerminal? {
        // O_NOCTTY: never acquire one; O_NOFOLLOW: /dev/tty is a device node, not a link.
        let descriptor = Glibc.open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC | O_NOFOLLOW)
        guard descriptor >= 0 else { return nil }
        guard isatty(descriptor) == 1 else {
            close(descriptor)
            return nil
        }
        return ControllingTerminal(descriptor: descriptor)
    }

    /// The process group the terminal lets read and sends keyboard signals to.
    var foregroundGroup: pid_t { tcgetpgrp(descriptor) }

    /// Whether this process's group is in the foreground: only then is the terminal ours to lend.
    var isOurs: Bool { foregroundGroup == getpgrp() }

    /// Makes `group` the foreground group. SIGTTOU is blocked in the calling thread around the
    /// call: `tcsetpgrp` from a background group (ours, while a command has the terminal) would
    /// otherwise stop this whole process.
    @discardableResult
    func setForeground(_ group: pid_t) -> Bool {
        var block = sigset_t()
        sigemptyset(&block)
        sigaddset(&block, SIGTTOU)
        var previous = sigset_t()
        pthread_sigmask(SIG_BLOCK, &block, &previous)
        defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
        return tcsetpgrp(descriptor, group) == 0
    }

    /// Lends the terminal to `group` if our group is in the foreground; true when it did.
    @discardableResult
    func lend(to group: pid_t) -> Bool {
        guard isOurs else { return false }
        return setForeground(group)
    }

    /// Takes the terminal back for our group if `group` has it.
    func takeBack(from group: pid_t) {
        if foregroundGroup == group { setForeground(getpgrp()) }
    }
}
