import ReachabilityCore
/// Runs one job under its gate: a ``BodyExecutor`` over the job's ``JobRunner``.
struct JobExecutor: GatedExecutor {
    let runner: JobRunner
    private let inner: BodyExecutor<JobOutput>

    init(runner: JobRunner) {
        self.runner = runner
        inner = BodyExecutor { run in try await runner.body(run) }
    }

    func start(_ run: GateRun, finished: @escaping @Sendable (Result<JobOutput, any Error>) -> Void) async {
        await inner.start(run, finished: finished)
    }

    func stop(_ reason: TransferWaitReason) async { await inner.stop(reason) }

    func shutDown() async { await inner.shutDown() }

    func transfer(updating transfer: Transfer) -> Transfer { runner.transfer(updating: transfer) }

    /// A transfer's bytes are budgeted and counted per network: it starts over on the new one.
    var restartsWhenNetworkMoves: Bool { true }
}
