/// Remembers each interface's own classification while its facts stay the same, so a storm of
/// link events costs one classification per changed interface, not one per interface per event.
///
/// Keyed by interface index, with the facts kept for comparison: hashing every interface's whole
/// facts on every publish cost more than the classifications it saved.
public struct ClassificationCache: Sendable {
    private var entries: [Int32: (facts: InterfaceFacts, classification: Classification)] = [:]

    public init() {}

    /// Number of cached interfaces.
    public var count: Int { entries.count }

    /// ``Classifier/classify(all:)``, reusing cached classifications; forgets interfaces that are
    /// gone or whose facts changed.
    public mutating func classify(all interfaces: [InterfaceFacts], with classifier: Classifier) -> [Int32: Classification] {
        var seen = 0
        var entries = self.entries
        self.entries = [:]
        let result = classifier.classify(all: interfaces) { facts in
            seen += 1
            if let cached = entries[facts.index], cached.facts == facts { return cached.classification }
            let classification = classifier.classify(facts)
            entries[facts.index] = (facts, classification)
            return classification
        }
        // Interfaces that went away: only scan when the counts say some did.
        if entries.count > seen {
            let present = Set(interfaces.map(\.index))
            entries = entries.filter { present.contains($0.key) }
        }
        self.entries = entries
        return result
    }
}
