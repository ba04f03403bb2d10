import Reachability
import ReachabilityCore
import Synchronization

extension JobRunner {
    /// Runs a command job to its end: each attempt under a fresh gate (from `makeGate`), retried
    /// after a doubling delay while it fails, until it exits 0 or the attempts are used up.
    /// Throws ``TransferError`` (`exitStatus`, `cannotRun`) when it fails for good.
    func runCommand(_ request: CommandRequest, makeGate: () -> TransferGate) async throws -> CommandTermination {
        let name = request.arguments.first ?? "the command"
        var failures = 0
        while true {
            let executor = CommandJobExecutor(
                command: CommandExecutor(request.arguments, options: request.options, onEvent: request.onEvent), engine: engine, id: id,
                priority: job.priority, held: command.withLock { $0.isHeld })
            command.withLock { $0.executor = executor }
            let termination: CommandTermination
            do {
                termination = try await makeGate().drive(executor) { [engine, id] event in engine.gateEvent(id, event) }
            } catch let error as CommandSpawnError {
                throw TransferError(.cannotRun, url: name, detail: error.description)
            }
            command.withLock { $0.executor = nil }
            if termination.exitStatus == 0 { return termination }
            failures += 1
            guard failures < request.maxAttempts else {
                throw TransferError(.exitStatus, url: name, detail: "\(termination) (\(failures) of \(request.maxAttempts) attempts)")
            }
            let delay = CommandRequest.backoff(request.retryDelay, failures: failures)
            engine.update(id, state: .paused(.retrying(after: delay, cause: "\(name) \(termination)")))
            try await Task.sleep(for: delay)
        }
    }

    /// The user paused the job: its command stops now, or its next attempt waits.
    func holdCommand() async {
        let executor = command.withLock { state in
            state.isHeld = true
            return state.executor
        }
        await executor?.hold()
    }

    /// The user resumed the job.
    func releaseCommand() async {
        let executor = command.withLock { state in
            state.isHeld = false
            return state.executor
        }
        await executor?.release()
    }
}
