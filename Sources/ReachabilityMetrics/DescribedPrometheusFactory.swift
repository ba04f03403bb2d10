import CoreMetrics
import Prometheus

/// A swift-metrics factory over one `PrometheusCollectorRegistry` that gives each family its
/// `# HELP` text.
///
/// swift-prometheus's own `PrometheusMetricsFactory` registers every metric with an empty help,
/// and the registry refuses (traps on) a second registration of a name with a different help,
/// so help cannot be added alongside it: counters and gauges are made here instead, with the
/// help of ``MetricDescription/all``. The other kinds, which nothing here uses, go to
/// swift-prometheus's factory over the same registry.
struct DescribedPrometheusFactory: MetricsFactory {
    let registry: PrometheusCollectorRegistry
    private let fallback: PrometheusMetricsFactory
    private let help: [String: String]

    init(registry: PrometheusCollectorRegistry) {
        self.registry = registry
        self.fallback = PrometheusMetricsFactory(registry: registry)
        self.help = Dictionary(uniqueKeysWithValues: MetricDescription.all.map { ($0.name, $0.help) })
    }

    func makeCounter(label: String, dimensions: [(String, String)]) -> any CounterHandler {
        registry.makeCounter(descriptor: descriptor(label), labels: dimensions)
    }

    func makeFloatingPointCounter(label: String, dimensions: [(String, String)]) -> any FloatingPointCounterHandler {
        registry.makeCounter(descriptor: descriptor(label), labels: dimensions)
    }

    func makeRecorder(label: String, dimensions: [(String, String)], aggregate: Bool) -> any RecorderHandler {
        guard !aggregate else { return fallback.makeRecorder(label: label, dimensions: dimensions, aggregate: true) }
        return registry.makeGauge(descriptor: descriptor(label), labels: dimensions)
    }

    func makeMeter(label: String, dimensions: [(String, String)]) -> any MeterHandler {
        registry.makeGauge(descriptor: descriptor(label), labels: dimensions)
    }

    func makeTimer(label: String, dimensions: [(String, String)]) -> any TimerHandler {
        fallback.makeTimer(label: label, dimensions: dimensions)
    }

    /// The whole name goes in `metricName`: the descriptor joins its non-empty parts, and the
    /// names here are already complete.
    private func descriptor(_ label: String) -> MetricNameDescriptor {
        MetricNameDescriptor(metricName: label, unitName: "", helpText: help[label] ?? "")
    }

    // Destroying unregisters the series from the registry, whoever made it.
    func destroyCounter(_ handler: any CounterHandler) { fallback.destroyCounter(handler) }
    func destroyFloatingPointCounter(_ handler: any FloatingPointCounterHandler) { fallback.destroyFloatingPointCounter(handler) }
    func destroyRecorder(_ handler: any RecorderHandler) { fallback.destroyRecorder(handler) }
    func destroyMeter(_ handler: any MeterHandler) { fallback.destroyMeter(handler) }
    func destroyTimer(_ handler: any TimerHandler) { fallback.destroyTimer(handler) }
}
