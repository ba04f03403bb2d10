/// Remembers each interface's own classification while its facts stay the same, so a storm of
/// link events costs one classification per changed interface, not one per interface per event.
public struct ClassificationCache: Sendable {
    private var entries: [InterfaceFacts: Classification] = [:]

    public init() {}

    /// Number of cached interfaces.
    public var count: Int { entries.count }

    /// ``Classifier/classify(all:)``, reusing cached classifications; forgets interfaces that are
    /// gone or whose facts changed.
    public mutating func classify(all interfaces: [InterfaceFacts], with classifier: Classifier) -> [Int32: Classification] {
        var current: [InterfaceFacts: Classification] = [:]
        current.reserveCapacity(interfaces.count)
        let previous = entries
        let result = classifier.classify(all: interfaces) { facts in
            let classification = previous[facts] ?? classifier.classify(facts)
            current[facts] = classification
            return classification
        }
        entries = current
        return result
    }
}
