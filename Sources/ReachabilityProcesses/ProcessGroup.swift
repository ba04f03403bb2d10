import Glibc
import Synchronization

/// One started command: the leader of its own process group, reaped by a thread of its own that
/// also relays job control. Signals go to the whole group, so that a shell script's children
/// stop, continue and end with it.
final class ProcessGroup: Sendable {
    /// The leader's process ID, which is also the group's ID.
    let pid: pid_t
    private let terminal: ControllingTerminal?
    private let state: Mutex<State>
    private let reaped = Latch()

    private struct State {
        var termination: CommandTermination?
        var onExit: (@Sendable (CommandTermination) -> Void)?
        var isStopped = false
        /// Stopped by the gate: its stop is not job control, and only the gate continues it.
        var isSuspended = false
        /// Being terminated: a stop is undone, so that it can act on the signal.
        var isEnding = false
        /// The leader is reaped and no process is left, so the ID may name someone else's group.
        var isEmpty = false
        var stopWaiters: [CheckedContinuation<Void, Never>] = []
    }

    private init(pid: pid_t, terminal: ControllingTerminal?, onExit: @escaping @Sendable (CommandTermination) -> Void) {
        self.pid = pid
        self.terminal = terminal
        state = Mutex(State(onExit: onExit))
    }

    /// Starts `arguments` as the leader of a new group, lending it `terminal` when ours, and a
    /// thread that waits for it; `onExit` gets its termination once.
    static func start(
        _ arguments: [String], setup: ProcessSpawn.Setup, terminal: ControllingTerminal?,
        onExit: @escaping @Sendable (CommandTermination) -> Void
    ) throws(CommandSpawnError) -> ProcessGroup {
        let pid = try ProcessSpawn.spawn(arguments, setup: setup, terminal: terminal)
        let group = ProcessGroup(pid: pid, terminal: terminal, onExit: onExit)
        WatcherThread.start { group.watch() }
        return group
    }

    /// How the leader ended; nil while it runs (or is stopped).
    var termination: CommandTermination? { state.withLock { $0.termination } }

    // MARK: Signals

    /// Sends `signal` to the group; true when a process got it.
    @discardableResult
    func send(_ signal: Int32) -> Bool {
        state.withLock { Self.send(signal, to: pid, state: &$0) }
    }

    private static func send(_ signal: Int32, to pid: pid_t, state: inout State) -> Bool {
        guard !state.isEmpty else { return false }
        if kill(-pid, signal) == 0 { return true }
        guard errno == ESRCH else { return false }
        // The leader left the group (setsid): until it is reaped its ID is still ours to signal.
        if state.termination == nil { return kill(pid, signal) == 0 }
        state.isEmpty = true
        return false
    }

    /// Whether a process is left: the leader (until reaped) or a live member of the group.
    private var hasMembers: Bool {
        let known = state.withLock { state -> Bool? in
            guard !state.isEmpty else { return false }
            if state.termination == nil { return true }
            if kill(-pid, 0) == 0 || errno == EPERM { return nil }
            state.isEmpty = true
            return false
        }
        // Something is in the group: zombies that init has yet to reap do not count.
        return known ?? GroupMembers.anyAlive(in: pid)
    }

    // MARK: Suspending and continuing

    /// Stops the whole group with SIGSTOP for the gate; returns once the leader has stopped (or
    /// ended), with the terminal back in our group.
    func suspend() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let stopped = state.withLock { state -> Bool in
                state.isSuspended = true
                _ = Self.send(SIGSTOP, to: pid, state: &state)
                if state.termination != nil || state.isStopped { return true }
                state.stopWaiters.append(continuation)
                return false
            }
            if stopped { continuation.resume() }
        }
        state.withLock { _ in terminal?.takeBack(from: pid) }
    }

    /// Continues the group after ``suspend()``, lending it the terminal first when ours; its end
    /// is now reported to `onExit`, at once if it ended while suspended.
    func resume(onExit: @escaping @Sendable (CommandTermination) -> Void) {
        let ended = state.withLock { state -> CommandTermination? in
            state.isSuspended = false
            if let termination = state.termination { return termination }
            state.onExit = onExit
            terminal?.lend(to: pid)
            state.isStopped = false
            _ = Self.send(SIGCONT, to: pid, state: &state)
            return nil
        }
        if let ended { onExit(ended) }
    }

    /// Lends the terminal to the group if it runs unstopped and our group has just become the
    /// foreground one (a shell's `fg` after `bg`).
    func lendTerminalIfRunning() {
        state.withLock { state in
            guard let terminal, state.termination == nil, !state.isStopped, !state.isSuspended, !state.isEnding else { return }
            terminal.lend(to: pid)
        }
    }

    // MARK: Terminating

    /// Ends the group: `signal` (with SIGCONT, so that a stopped process can act on it), then
    /// SIGKILL if any process of it is left after `killAfter` (`onKill` is told). Returns once the
    /// leader is reaped and the group is empty; after SIGKILL, strays that init has yet to reap
    /// are waited for a few seconds at most.
    func terminate(
        with signal: Int32, killAfter: Duration, sleep: @escaping @Sendable (Duration) async throws -> Void,
        onKill: @Sendable () -> Void
    ) async {
        state.withLock { state in
            state.isEnding = true
            state.isSuspended = false
            _ = Self.send(signal, to: pid, state: &state)
            _ = Self.send(SIGCONT, to: pid, state: &state)
        }
        guard hasMembers else { return }
        let ended = await withTaskGroup(of: Bool.self) { tasks in
            tasks.addTask { await self.untilEmpty(); return true }
            tasks.addTask { try? await sleep(killAfter); return false }
            let first = await tasks.next() ?? true
            tasks.cancelAll()
            return first
        }
        if ended { return }
        if send(SIGKILL) { onKill() }
        await reaped.wait()
        await withTaskGroup(of: Void.self) { tasks in
            tasks.addTask { await self.untilEmpty() }
            tasks.addTask { try? await Task.sleep(for: .seconds(5)) }
            await tasks.next()
            tasks.cancelAll()
        }
    }

    /// Returns once the leader is reaped and the group empty, or the task is cancelled.
    private func untilEmpty() async {
        await reaped.wait()
        while !Task.isCancelled && hasMembers { try? await Task.sleep(for: .milliseconds(20)) }
    }

    // MARK: The watcher thread

    /// Reports the leader's stops and continues, and reaps it.
    private func watch() {
        JobControl.unblockStopSignals()
        while true {
            var raw: Int32 = 0
            if waitpid(pid, &raw, WUNTRACED | WCONTINUED) < 0 {
                if errno == EINTR { continue }
                // ECHILD: reaped elsewhere (SIGCHLD ignored, a `waitpid(-1)`): the status is lost.
                return finish(CommandTermination(pid: pid, exitStatus: 255))
            }
            switch WaitStatus(raw) {
            case .exited(let status): return finish(CommandTermination(pid: pid, exitStatus: status))
            case .signalled(let signal): return finish(CommandTermination(pid: pid, signal: signal))
            case .continued: state.withLock { $0.isStopped = false }
            case .stopped(let signal): stopped(by: signal)
            }
        }
    }

    private func stopped(by signal: Int32) {
        enum Response { case none, continueGroup, relay(ControllingTerminal) }
        let (waiters, response) = state.withLock { state -> ([CheckedContinuation<Void, Never>], Response) in
            state.isStopped = true
            defer { state.stopWaiters = [] }
            if state.isEnding { return (state.stopWaiters, .continueGroup) }
            guard !state.isSuspended, let terminal else { return (state.stopWaiters, .none) }
            return (state.stopWaiters, .relay(terminal))
        }
        for waiter in waiters { waiter.resume() }
        switch response {
        case .none: break
        case .continueGroup: send(SIGCONT)
        case .relay(let terminal): relayJobStop(signal, terminal: terminal)
        }
    }

    /// The command stopped for job control, not for the gate: Ctrl-Z (SIGTSTP), a `kill -STOP`,
    /// or the terminal touched from the background (SIGTTIN, SIGTTOU). Does what the shell above
    /// us expects of a job: the terminal goes back to our group and our group stops too, so the
    /// shell sees the job stopped; once it continues us (`fg`, `bg`), the command gets the
    /// terminal again if ours is the foreground group, and SIGCONT.
    private func relayJobStop(_ signal: Int32, terminal: ControllingTerminal) {
        let foreground = terminal.foregroundGroup
        // Touching the terminal before it was lent (or while ours is in the foreground): the
        // terminal is ours to lend, and there is nothing for the shell to see.
        let onlyEarly = (signal == SIGTTIN || signal == SIGTTOU) && (foreground == pid || foreground == getpgrp())
        if !onlyEarly {
            state.withLock { _ in terminal.takeBack(from: pid) }
            JobControl.stopOwnGroup(with: JobControl.relayedStop(for: signal))
        }
        // Continued (`fg`, `bg`), or the stop was discarded.
        state.withLock { state in
            guard state.termination == nil, !state.isSuspended else { return }
            terminal.lend(to: pid)
            state.isStopped = false
            _ = Self.send(SIGCONT, to: pid, state: &state)
        }
    }

    private func finish(_ termination: CommandTermination) {
        let (waiters, onExit) = state.withLock { state in
            state.termination = termination
            state.isStopped = false
            // Under the lock, so that no resume lends the terminal to the ended group after this.
            terminal?.takeBack(from: pid)
            defer {
                state.stopWaiters = []
                state.onExit = nil
            }
            return (state.stopWaiters, state.onExit)
        }
        for waiter in waiters { waiter.resume() }
        reaped.open()
        onExit?(termination)
    }
}
