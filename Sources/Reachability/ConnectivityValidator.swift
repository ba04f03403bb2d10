import ReachabilityCore
import Synchronization

/// Runs validation for one run of a ``NetworkMonitor``: probes every uplink when its network is
/// new, again with backoff while it is not `full`, rarely once it is (``ValidationSchedule``
/// decides), and republishes the latest path whenever a round changes what is known.
///
/// The netlink thread hands it every evaluated path (``observe(_:path:)``), which returns at
/// once; probes run in child tasks of one driver task, so a slow portal never delays a path.
final class ConnectivityValidator: Sendable {
    private struct State {
        var schedule: ValidationSchedule
        var targets: [UplinkKey: ProbeTarget] = [:]
        var results: [Int32: (key: UplinkKey, validation: InterfaceValidation)] = [:]
        var latest: NetworkPath?

        func annotate(_ path: NetworkPath) -> NetworkPath {
            let pending = Set(targets.keys.map(\.index)).subtracting(results.keys)
            return ConnectivityAnnotation.apply(results.mapValues(\.validation), pending: pending, to: path)
        }
    }

    private let state: Mutex<State>
    private let wake = WakeSignal()
    private let validation: ConnectivityValidation
    private let prober: any ConnectivityProber
    private let namespacePath: String?
    private let publish: @Sendable (NetworkPath) -> Void
    private let origin = ContinuousClock.now
    private let driver = Mutex<Task<Void, Never>?>(nil)

    init(
        validation: ConnectivityValidation, prober: any ConnectivityProber, namespacePath: String?,
        publish: @escaping @Sendable (NetworkPath) -> Void
    ) {
        self.validation = validation
        self.prober = prober
        self.namespacePath = namespacePath
        self.publish = publish
        state = Mutex(State(schedule: ValidationSchedule(
            initialRetry: validation.initialRetry, maximumRetry: validation.maximumRetry, recheckInterval: validation.recheckInterval)))
        let task = Task { [weak self] in _ = await self?.run() }
        driver.withLock { $0 = task }
    }

    private var elapsed: Duration { ContinuousClock.now - origin }

    /// Takes a freshly evaluated path and its snapshot, and publishes it with what is known.
    /// Publishing happens under the lock, here and when a round ends, so a round's newer
    /// answer can never be overtaken by an older annotation of the same path.
    func observe(_ snapshot: NetworkSnapshot, path: NetworkPath) {
        let targets = ProbeUplinks.targets(in: snapshot, namespacePath: namespacePath)
        let now = elapsed
        state.withLock { state in
            state.targets = targets
            state.schedule.setUplinks(Set(targets.keys), now: now)
            state.results = state.results.filter { targets[$0.value.key] != nil }
            state.latest = path
            publish(state.annotate(path))
        }
        wake.signal()
    }

    /// Stops probing; rounds in flight are cancelled and their results dropped.
    func cancel() {
        driver.withLock { $0 }?.cancel()
    }

    private func run() async {
        await withDiscardingTaskGroup { group in
            while !Task.isCancelled {
                let now = elapsed
                let due = state.withLock { state in
                    state.schedule.takeDue(now: now).compactMap { key in state.targets[key].map { (key, $0) } }
                }
                for (key, target) in due {
                    group.addTask { await self.round(key, target) }
                }
                let next = state.withLock { $0.schedule.nextDue }
                await wake.wait(until: next.map { origin + $0 })
            }
            group.cancelAll()
        }
    }

    private func round(_ key: UplinkKey, _ target: ProbeTarget) async {
        let records = await prober.probe(target, validation: validation)
        guard !Task.isCancelled else { return }
        let result = InterfaceValidation(judging: records)
        let now = elapsed
        state.withLock { state in
            guard state.schedule.finished(key, connectivity: result.connectivity, now: now) else { return }
            state.results[key.index] = (key, result)
            if let latest = state.latest { publish(state.annotate(latest)) }
        }
        wake.signal()
    }

    /// One round on every uplink of `snapshot` at once, for a one-shot answer (`reach status`).
    static func validateOnce(
        _ snapshot: NetworkSnapshot, path: NetworkPath, validation: ConnectivityValidation, prober: any ConnectivityProber,
        namespacePath: String?
    ) async -> NetworkPath {
        let targets = ProbeUplinks.targets(in: snapshot, namespacePath: namespacePath)
        let results = await withTaskGroup(of: (Int32, InterfaceValidation).self) { group in
            for target in targets.values {
                group.addTask {
                    (target.index, InterfaceValidation(judging: await prober.probe(target, validation: validation)))
                }
            }
            var results: [Int32: InterfaceValidation] = [:]
            for await (index, validation) in group { results[index] = validation }
            return results
        }
        return ConnectivityAnnotation.apply(results, to: path)
    }
}

/// The source's subscription together with the run's validator: stopping one stops both.
struct ValidatedSubscription: NetworkStateSubscription {
    let base: any NetworkStateSubscription
    let validator: ConnectivityValidator

    func cancel() {
        validator.cancel()
        base.cancel()
    }

    func requestCounters() { base.requestCounters() }
}
