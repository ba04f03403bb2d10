import ReachabilityCore
import Synchronization

/// One ``TransferGate/drive(_:_:onEvent:)``: feeds networks, timer ticks and re-judgements
/// through ``TransferGateState`` and starts and stops the executor as it says. Used from the
/// calling task only; the tasks it starts talk back through its ``GateInbox``.
///
/// A driver that only waits (nothing running, no settling timer, nothing queued) has a new
/// network decided where it arrives, by the inbox, without waking the task: ten thousand jobs
/// waiting on one path change cost a pure decision each, not a task switch each. Whatever needs
/// the executor or a timer goes through the task.
final class GateDriver<E: GatedExecutor> {
    private let gate: TransferGate
    private let executor: E
    private let onEvent: @Sendable (TransferGate.Event) -> Void
    private let inputs: AsyncStream<GateInbox<E.Output>.Input>
    private let inbox: GateInbox<E.Output>
    private var watch: DestinationJudge.Subscription?
    private var timer: Task<Void, Never>?
    /// The run the executor is on; a report from any other is stale.
    private var generation = 0
    /// The network the current run was started on.
    private var runNetwork: TransferNetwork?
    private var isRunning = false
    private var everStarted = false

    init(
        gate: TransferGate, executor: E, transfer: Transfer, handover: TransferGateWait.Handover? = nil,
        onEvent: @escaping @Sendable (TransferGate.Event) -> Void
    ) {
        self.gate = gate
        self.executor = executor
        self.onEvent = onEvent
        let (inputs, feed) = AsyncStream.makeStream(of: GateInbox<E.Output>.Input.self)
        self.inputs = inputs
        var state = handover?.gate ?? TransferGateState(policy: gate.policy, transfer: transfer)
        state.transfer = transfer
        inbox = GateInbox(feed: feed, state: state, lastReason: handover?.lastReason)
    }

    func drive() async throws -> E.Output {
        let (inbox, gate, onEvent) = (self.inbox, self.gate, self.onEvent)
        watch = gate.watchNetworks { result in
            switch result {
            case .success(let network):
                inbox.arrive(network, now: gate.now(), onEvent: onEvent)
            case .failure(let error):
                inbox.send(.networksEnded(error))
            }
        }
        for await input in inputs {
            inbox.take()
            if let output = try await handle(input) { return output }
            inbox.park(if: !isRunning && timer == nil)
        }
        throw CancellationError()
    }

    /// Shuts the executor down and waits for it to end.
    func shutDown() async {
        inbox.finish()
        timer?.cancel()
        watch?.cancel()
        await executor.shutDown()
    }

    /// One input; the executor's output when the run it reports finished the work.
    private func handle(_ input: GateInbox<E.Output>.Input) async throws -> E.Output? {
        switch input {
        case .network(let network):
            if let action = inbox.decide(network, transfer: executor.transfer(updating:), now: gate.now()) { await follow(action, on: network) }
        case .decided(let network, let action):
            await follow(action, on: network)
        case .tick:
            if let action = inbox.decide(transfer: executor.transfer(updating:), now: gate.now()) { await apply(action) }
        case .rejudge(let transfer, let reply):
            guard let action = inbox.decide(transfer: { _ in transfer }, now: gate.now()) else {
                reply(true)
                return nil
            }
            if case .pause(let reason) = action, isRunning {
                // Marked stopped before the reply, so the body's exit is not taken as its result.
                markStopped()
                reply(false)
                await finishStop(reason)
            } else {
                reply(action == .run)
                await apply(action)
            }
        case .finished(let finishedGeneration, let result):
            // A run the gate stopped may report late; only the current run counts.
            guard finishedGeneration == generation, isRunning else { return nil }
            isRunning = false
            return try result.get()
        case .networksEnded(let error):
            throw error
        }
        return nil
    }

    private func follow(_ action: TransferGateState.Action, on network: TransferNetwork) async {
        if action == .run, isRunning, executor.restartsWhenNetworkMoves, let running = runNetwork, !network.carriesTrafficLike(running) {
            await move(to: network)
        } else {
            await apply(action)
        }
    }

    private func apply(_ action: TransferGateState.Action) async {
        switch action {
        case .run:
            cancelTimer()
            let latest = inbox.noteRunning()
            guard !isRunning, let latest else { return }
            await start(on: latest)
        case .pause(let reason):
            if isRunning {
                markStopped()
                await finishStop(reason)
            } else {
                cancelTimer()
                if inbox.noteWaiting(reason, sameIf: { $0 == reason }) { onEvent(.waiting(reason)) }
            }
        case .waitUntil(let deadline, let reason):
            if inbox.noteWaiting(reason, sameIf: { $0.code == reason.code }) { onEvent(.waiting(reason)) }
            cancelTimer()
            let (gate, inbox) = (self.gate, self.inbox)
            timer = Task {
                do { try await gate.sleep(until: deadline) } catch { return }
                inbox.send(.tick)
            }
        }
    }

    /// The run's traffic moved to `network`, which allows it too: the run stops and starts
    /// again there at once, judged with what it still has to move, so the new network's
    /// limits hold and its bytes are counted against it (a download resumes with `Range`).
    private func move(to network: TransferNetwork) async {
        markStopped()
        cancelTimer()
        await executor.stop(.noNetwork)
        inbox.updateTransfer(executor.transfer(updating:))
        await start(on: network)
    }

    private func start(on network: TransferNetwork) async {
        generation += 1
        isRunning = true
        runNetwork = network
        let current = generation
        onEvent(everStarted ? .resumed : .started)
        everStarted = true
        let inbox = self.inbox
        let transfer = inbox.transfer
        let run = GateRun(
            network: network, transfer: transfer, byteBudget: gate.policy.byteBudget(on: network, for: transfer),
            rejudgement: { transfer in
                await withCheckedContinuation { continuation in
                    if !inbox.send(.rejudge(transfer, reply: { continuation.resume(returning: $0) })) { continuation.resume(returning: false) }
                }
            }
        )
        await executor.start(run) { result in inbox.send(.finished(generation: current, result)) }
    }

    /// Makes any later report of the current run stale.
    private func markStopped() {
        isRunning = false
        generation += 1
    }

    private func finishStop(_ reason: TransferWaitReason) async {
        cancelTimer()
        await executor.stop(reason)
        onEvent(.paused(reason))
        _ = inbox.noteWaiting(reason, sameIf: { _ in false })
    }

    private func cancelTimer() {
        timer?.cancel()
        timer = nil
    }
}
