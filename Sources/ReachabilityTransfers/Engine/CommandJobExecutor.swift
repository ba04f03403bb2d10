import Reachability
import ReachabilityCore
import Synchronization

/// One run of a command job under its gate: a ``CommandExecutor`` that takes one of the engine's
/// slots while the command runs (never while it waits or is suspended), and that the job's user
/// can hold (``hold()``) and let go (``release()``) independently of the network: a hold while
/// the gate allows suspends the command, and a release continues it only if the gate still
/// allows it then. The gate's calls and the user's may interleave; the actor orders them.
actor CommandJobExecutor: GatedExecutor {
    typealias Output = CommandTermination

    private let command: CommandExecutor
    private let engine: TransferEngine
    private let id: JobID
    private let priority: Transfer.Priority
    /// Commands share the engine's total, never a host's slots: a key of their own.
    private let slotKey: String
    /// The run the gate allows now, and where its end goes; nil while the gate holds it back.
    private var allowed: (run: GateRun, finished: @Sendable (Result<CommandTermination, any Error>) -> Void)?
    private var isHeld: Bool
    private var isActive = false
    private var holdsSlot = false
    /// Bumped by a user's hold: the end of a command it terminated is not the run's result.
    private let generation = Generation()

    private final class Generation: Sendable {
        private let value = Atomic<Int>(0)
        var current: Int { value.load(ordering: .sequentiallyConsistent) }
        func bump() { value.wrappingAdd(1, ordering: .sequentiallyConsistent) }
    }

    init(command: CommandExecutor, engine: TransferEngine, id: JobID, priority: Transfer.Priority, held: Bool) {
        self.command = command
        self.engine = engine
        self.id = id
        self.priority = priority
        slotKey = "command \(id)"
        isHeld = held
    }

    func start(_ run: GateRun, finished: @escaping @Sendable (Result<CommandTermination, any Error>) -> Void) async {
        allowed = (run, finished)
        if !isHeld { await activate() }
    }

    func stop(_ reason: TransferWaitReason) async {
        allowed = nil
        guard isActive else { return }
        isActive = false
        await command.stop(reason)
        releaseSlot()
    }

    func shutDown() async {
        allowed = nil
        isActive = false
        await command.shutDown()
        releaseSlot()
    }

    /// The user paused the job: the command stops (suspended, or terminated per its options).
    func hold() async {
        isHeld = true
        guard isActive else { return }
        isActive = false
        generation.bump()
        await command.pause()
        releaseSlot()
    }

    /// The user resumed the job: the command goes on if the gate allows it now.
    func release() async {
        isHeld = false
        if allowed != nil && !isActive { await activate() }
    }

    private func activate() async {
        guard let (run, finished) = allowed else { return }
        if !holdsSlot {
            do {
                try await engine.slots.acquire(slotKey, priority: priority) { engine.update(id, state: .queued) }
            } catch {
                return  // cancelled: the gate is shutting the run down
            }
            holdsSlot = true
        }
        // The gate or the user may have stopped it while it waited for the slot.
        guard allowed != nil, !isHeld else {
            releaseSlot()
            return
        }
        isActive = true
        engine.update(id, state: .running, network: run.network)
        let (generation, current) = (self.generation, self.generation.current)
        await command.start(run) { result in
            // A command terminated by a hold reports its end late: not a result of the run.
            if generation.current == current { finished(result) }
        }
    }

    private func releaseSlot() {
        guard holdsSlot else { return }
        holdsSlot = false
        engine.slots.release(slotKey)
    }
}
