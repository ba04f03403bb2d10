import FoundationEssentials
import Glibc
import Logging
import ReachabilityCore
import ReachabilityProcesses
import Synchronization

/// Runs the executables of a dispatcher directory on each path change, as NetworkManager's and
/// networkd's dispatchers do: in name order, one at a time, each with `REACH_*` variables
/// (``DispatcherChange``) and the change's event as its argument, each for at most
/// ``timeout`` (then its process group is terminated), their output in the daemon's log.
///
/// The path follower only queues a change (``pathChanged(_:)`` never waits), so a slow hook
/// delays neither the monitor, nor the API, nor any job; changes that pile up behind a slow hook
/// are kept (up to ``maxPending``, the oldest dropped first), each with the facts before it.
final class Dispatcher: Sendable {
    /// One run of the directory: the event (the hooks' argument) and their environment.
    struct Call: Sendable, Hashable {
        var event: String
        var environment: [String: String]
    }

    /// Changes kept while hooks run; beyond, the oldest waiting one is dropped.
    static let maxPending = 32

    let directory: String
    let timeout: Duration
    private let socketPath: String
    private let logger: Logger
    private let changes: AsyncStream<Call>
    private let queue: AsyncStream<Call>.Continuation
    private let last = Mutex<DispatcherChange.Facts?>(nil)
    private let allowance = Mutex(LogAllowance())

    init(directory: String, timeout: Duration, socketPath: String, logger: Logger) {
        self.directory = directory
        self.timeout = timeout
        self.socketPath = socketPath
        self.logger = logger
        (changes, queue) = AsyncStream.makeStream(of: Call.self, bufferingPolicy: .bufferingNewest(Self.maxPending))
    }

    /// Queues the change to `path`, when hooks are told about it (status, type, interface, cost,
    /// connectivity or SSID changed). Returns at once.
    func pathChanged(_ path: NetworkPath) {
        let facts = DispatcherChange.Facts(path)
        let change = last.withLock { last -> DispatcherChange? in
            defer { last = facts }
            return DispatcherChange.between(last, facts)
        }
        if let change { queue.yield(Call(event: change.event, environment: change.environment(socketPath: socketPath))) }
    }

    /// Queues a data budget's change of state (``BudgetHookEvent``). Returns at once.
    func budgetChanged(_ event: BudgetHookEvent) {
        queue.yield(Call(event: event.event, environment: event.environment(socketPath: socketPath)))
    }

    /// Runs the hooks for each queued change until cancelled.
    func run() async {
        for await change in changes {
            if Task.isCancelled { break }
            await dispatch(change)
        }
    }

    /// Runs every hook of the directory, as it is now, for `change`.
    func dispatch(_ change: DispatcherChange) async {
        await dispatch(Call(event: change.event, environment: change.environment(socketPath: socketPath)))
    }

    /// Runs every hook of the directory, as it is now, for `call`.
    func dispatch(_ change: Call) async {
        guard let opening = DispatcherScripts.open(directory) else { return }
        let opened: HookDirectory
        switch opening {
        case .success(let directory): opened = directory
        case .failure(let error):
            logger.warning("dispatcher: \(error.message)")
            return
        }
        let environment = change.environment
        for entry in opened.entries() {
            if Task.isCancelled { return }
            switch DispatcherScripts.verdict(entry, euid: geteuid()) {
            case .skip: continue
            case .refuse(let warning): logger.warning("dispatcher: refusing \(directory)/\(warning)")
            case .run:
                // Judged again on the file opened through the directory's descriptor, and started
                // through that descriptor: the directory renamed or replaced meanwhile changes
                // nothing, and only root and the daemon's user can change its entries.
                switch DispatcherScripts.openHook(entry.name, in: opened) {
                case .opened(let descriptor):
                    close(descriptor)
                    await run(entry.name, in: opened, change: change, environment: environment)
                case .refused(.refuse(let warning)): logger.warning("dispatcher: refusing \(directory)/\(warning)")
                case .refused: continue
                }
            }
        }
    }

    private func run(_ name: String, in opened: HookDirectory, change: Call, environment: [String: String]) async {
        let logger = self.logger
        let path = directory + "/" + name
        let unlogged = Atomic<Int>(0)
        do {
            let outcome = try await HookProcess.run(
                [name, change.event], directory: opened.descriptor, environment: environment, timeout: timeout
            ) { [self] line in
                guard self.allowance.withLock({ $0.take(at: .now) }) else {
                    unlogged.wrappingAdd(1, ordering: .relaxed)
                    return
                }
                logger.notice("dispatcher: \(name): \(line)")
            }
            let dropped = outcome.droppedLines + unlogged.load(ordering: .relaxed)
            if dropped > 0 {
                logger.warning("dispatcher: \(name): \(dropped) more output line(s) not logged (at most \(HookProcess.maxLines) per run, \(Int(LogAllowance.perSecond)) a second)")
            }
            if outcome.endedLeftovers {
                logger.warning("dispatcher: \(name) left processes running after it exited; they were ended (start services with systemd-run)")
            }
            if outcome.timedOut {
                logger.warning("dispatcher: \(name) ran past \(timeout) for '\(change.event)' and was killed")
            } else if outcome.termination.exitStatus != 0 {
                logger.warning("dispatcher: \(name) \(outcome.termination) for '\(change.event)'")
            }
        } catch {
            logger.warning("dispatcher: cannot run \(path): \(error)")
        }
    }
}
