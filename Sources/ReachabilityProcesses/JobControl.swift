import Glibc

/// How this process takes part in its shell's job control while a command it started has the
/// terminal (see `ProcessGroup.relayJobStop`).
enum JobControl {
    /// The signals whose default action stops a process and that a terminal sends.
    static let stopSignals: [Int32] = [SIGTSTP, SIGTTIN, SIGTTOU]

    /// Unblocks ``stopSignals`` in the calling thread: threads started from Dispatch's block
    /// nearly every signal, and the thread that stops this process with `raise` must let them in.
    static func unblockStopSignals() {
        var set = sigset_t()
        sigemptyset(&set)
        for signal in stopSignals { sigaddset(&set, signal) }
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
    }

    /// Stops this process's group with `signal`, as the terminal would have: the rest of the
    /// group (the other commands of a pipeline) gets it with `kill`, and this process with
    /// `raise`, which stops it before the call returns. Returns once the shell continues us;
    /// when the kernel discards the stop (an orphaned group, which no shell would continue), at
    /// once.
    static func stopOwnGroup(with signal: Int32) {
        signalRestOfGroup(signal)
        _ = raise(signal)
    }

    /// Sends `signal` to the other processes of our group but not to this one. A copy for this
    /// process would stop it on its own schedule: if that came before `raise`, the raised one
    /// would stop it again once continued. So the signal is ignored here while it is sent (and
    /// blocked in this thread, so that a copy queued for us is taken off before the
    /// disposition is restored).
    private static func signalRestOfGroup(_ signal: Int32) {
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, signal)
        var previousMask = sigset_t()
        pthread_sigmask(SIG_BLOCK, &set, &previousMask)
        defer { pthread_sigmask(SIG_SETMASK, &previousMask, nil) }
        var ignore = sigaction()
        ignore.__sigaction_handler.sa_handler = SIG_IGN
        var previous = sigaction()
        sigaction(signal, &ignore, &previous)
        _ = kill(0, signal)
        var noWait = timespec()
        while sigtimedwait(&set, nil, &noWait) == signal {}
        sigaction(signal, &previous, nil)
    }

    /// The signal this process stops with when its command stopped with `signal`: the same for
    /// terminal access (the shell then says "tty input"), SIGTSTP for any other stop.
    static func relayedStop(for signal: Int32) -> Int32 {
        signal == SIGTTIN || signal == SIGTTOU ? signal : SIGTSTP
    }
}
