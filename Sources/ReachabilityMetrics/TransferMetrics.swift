import CoreMetrics

/// The transfer counters, one series per label set, made the first time it is added to.
///
/// A series that appears with its first increment hides that increment from `increase()` and
/// `rate()`; adding 0 makes the series (at 0) so a caller can create the ones it expects up front.
struct TransferMetrics {
    private struct BytesKey: Hashable {
        let direction: String
        let networkType: String
    }

    private let factory: any MetricsFactory
    private var bytes: [BytesKey: Counter] = [:]
    private var pausedSeconds: [String: FloatingPointCounter] = [:]

    init(factory: any MetricsFactory) {
        self.factory = factory
    }

    mutating func addBytes(_ count: Int64, direction: String, networkType: String) {
        // A Prometheus counter only goes up (and swift-prometheus traps on a negative amount).
        guard count >= 0 else { return }
        let key = BytesKey(direction: direction, networkType: networkType)
        let counter = bytes[key] ?? Counter(
            label: MetricDescription.transferBytes.name, dimensions: [("direction", direction), ("network_type", networkType)],
            factory: factory)
        bytes[key] = counter
        counter.increment(by: count)
    }

    mutating func addPausedSeconds(_ seconds: Double, reason: String) {
        guard seconds >= 0, seconds.isFinite else { return }
        let counter = pausedSeconds[reason] ?? FloatingPointCounter(
            label: MetricDescription.pausedSeconds.name, dimensions: [("reason", reason)], factory: factory)
        pausedSeconds[reason] = counter
        counter.increment(by: seconds)
    }
}
