import Glibc
public import Reachability
public import ReachabilityCore
import Synchronization

/// Runs a command under a ``TransferGate``: started in a process group of its own, stopped with
/// signals to the whole group (``Options/OnDisallow``), and reaped by a dedicated thread, so
/// that nothing it started outlives ``shutDown()``.
///
/// ```swift
/// let executor = CommandExecutor(["rsync", "-a", "photos/", "backup:photos/"])
/// let termination = try await gate.drive(executor)   // a CommandTermination
/// ```
///
/// On a terminal it behaves like a shell's foreground job (``Options/usesTerminal``): the
/// command gets the terminal while it runs, Ctrl-C and Ctrl-Z reach it, and when it stops for
/// job control this process's group stops too, so the shell above sees the job stopped and
/// `fg` continues both.
public final class CommandExecutor: GatedExecutor {
    /// A run's result: how the command ended.
    public typealias Output = CommandTermination

    /// The command and its arguments; the first is looked up on `PATH`.
    public let arguments: [String]
    /// How the command is stopped, and whether it gets the terminal.
    public let options: Options
    private let onEvent: @Sendable (Event) -> Void
    private let sleep: @Sendable (Duration) async throws -> Void
    private let terminal: ControllingTerminal?
    private let state = Mutex(State())

    private struct State {
        var group: ProcessGroup?
        var runs = 0
        /// ``end(forwarding:)`` was called: nothing starts any more.
        var isClosed = false
    }

    /// An executor of `arguments` whose SIGKILL deadlines run on the continuous clock.
    public convenience init(_ arguments: [String], options: Options = Options(), onEvent: @escaping @Sendable (Event) -> Void = { _ in }) {
        self.init(arguments, options: options, clock: ContinuousClock(), onEvent: onEvent)
    }

    /// An executor whose SIGKILL deadlines (``Options/killAfter``) run on `clock`.
    public init<C: Clock>(
        _ arguments: [String], options: Options = Options(), clock: C, onEvent: @escaping @Sendable (Event) -> Void = { _ in }
    ) where C.Duration == Duration {
        self.arguments = arguments
        self.options = options
        self.onEvent = onEvent
        sleep = { duration in try await clock.sleep(until: clock.now.advanced(by: duration), tolerance: nil) }
        terminal = options.usesTerminal ? ControllingTerminal.open() : nil
    }

    /// The running (or suspended) command's process ID, which is also its group's.
    public var pid: Int32? { state.withLock { $0.group?.pid } }

    /// Starts the command, or continues it after a suspension. Its end is reported to `finished`;
    /// a command that cannot start reports a ``CommandSpawnError``.
    public func start(_ run: GateRun, finished: @escaping @Sendable (Result<CommandTermination, any Error>) -> Void) async {
        let report: @Sendable (CommandTermination) -> Void = { finished(.success($0)) }
        enum Next { case refused, resume(ProcessGroup), started(ProcessGroup, run: Int), failed(CommandSpawnError) }
        let next = state.withLock { state -> Next in
            if state.isClosed { return .refused }
            if let group = state.group, options.onDisallow == .suspend { return .resume(group) }
            do throws(CommandSpawnError) {
                let log = try options.outputPath.map { path throws(CommandSpawnError) in try CappedLog(path: path, limit: options.outputLimit) }
                // Under the lock, so that `end(forwarding:)` either sees this group or refuses it.
                let group: ProcessGroup
                do throws(CommandSpawnError) {
                    group = try ProcessGroup.start(arguments, setup: options.spawnSetup(output: log), terminal: terminal, onExit: report)
                } catch {
                    log?.abandon()
                    throw error
                }
                log?.startReading()
                state.group = group
                state.runs += 1
                return .started(group, run: state.runs)
            } catch {
                return .failed(error)
            }
        }
        switch next {
        case .refused: finished(.failure(CancellationError()))
        case .failed(let error): finished(.failure(error))
        case .started(let group, let run): onEvent(.started(pid: group.pid, run: run))
        case .resume(let group):
            if group.termination == nil { onEvent(.continued(pid: group.pid)) }
            group.resume(onExit: report)
        }
    }

    /// Suspends the command's group (and returns once it is stopped), or terminates it (and
    /// returns once it is gone), as ``Options/onDisallow`` says.
    public func stop(_ reason: TransferWaitReason) async { await halt(reason) }

    /// Stops the command because its user paused it, as ``stop(_:)`` does for the network:
    /// suspended (SIGSTOP) or, with ``Options/OnDisallow/terminate``, terminated; ``start(_:finished:)``
    /// continues (SIGCONT) or restarts it.
    public func pause() async { await halt(nil) }

    private func halt(_ reason: TransferWaitReason?) async {
        guard let group = state.withLock({ $0.group }), group.termination == nil else { return }
        switch options.onDisallow {
        case .suspend:
            await group.suspend()
            if group.termination == nil { onEvent(.suspended(pid: group.pid, reason: reason)) }
        case .terminate:
            onEvent(.terminating(pid: group.pid, reason: reason))
            await terminate(group, with: SIGTERM)
            state.withLock { state in
                if state.group === group { state.group = nil }
            }
        }
    }

    /// Terminates the command's group if anything of it is left (SIGTERM, SIGKILL after
    /// ``Options/killAfter``) and returns once the leader is reaped and the group is empty.
    public func shutDown() async {
        guard let group = state.withLock({ state in
            defer { state.group = nil }
            return state.group
        }) else { return }
        if group.termination == nil { onEvent(.terminating(pid: group.pid, reason: nil)) }
        await terminate(group, with: SIGTERM)
    }

    /// Ends the command because this process is asked to end (a signal it got): forwards
    /// `signal` to the group (with SIGCONT, so that a suspended command can act on it), sends
    /// SIGKILL after ``Options/killAfter``, and refuses any later start. Returns how the command
    /// ended; nil when none had started.
    public func end(forwarding signal: Int32) async -> CommandTermination? {
        guard let group = state.withLock({ state -> ProcessGroup? in
            state.isClosed = true
            return state.group
        }) else { return nil }
        await terminate(group, with: signal)
        return group.termination
    }

    /// Sends `signal` to the command's group, if one is started; true when a process got it.
    @discardableResult
    public func send(_ signal: Int32) -> Bool {
        state.withLock { $0.group }?.send(signal) ?? false
    }

    /// Lends the terminal to a running command whose terminal this process's group has just got
    /// back: call it when this process gets SIGCONT (a shell's `fg` after `bg`).
    public func foregroundMayHaveChanged() {
        state.withLock { $0.group }?.lendTerminalIfRunning()
    }

    private func terminate(_ group: ProcessGroup, with signal: Int32) async {
        let (killAfter, sleep, onEvent) = (options.killAfter, self.sleep, self.onEvent)
        // A task of its own: the gate shuts down from a task that may be cancelled, and the
        // termination must still wait out the deadline and reap.
        await Task {
            await group.terminate(with: signal, killAfter: killAfter, sleep: sleep) {
                onEvent(.killed(pid: group.pid, signal: signal, after: killAfter))
            }
        }.value
    }
}
