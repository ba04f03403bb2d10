/// Remembers each interface's own classification while its facts stay the same, so a storm of
/// link events costs one classification per changed interface, not one per interface per event.
///
/// Keyed by interface index, with the facts kept for comparison: hashing every interface's whole
/// facts on every publish cost more than the classifications it saved. Entries are objects so
/// that a lookup copies a reference, not the facts.
public struct ClassificationCache: Sendable {
    private final class Entry: Sendable {
        let facts: InterfaceFacts
        let classification: Classification
        init(_ facts: InterfaceFacts, _ classification: Classification) {
            self.facts = facts
            self.classification = classification
        }
    }

    private var entries: [Int32: Entry] = [:]

    /// An empty cache: the first ``classify(all:with:)`` classifies every interface.
    public init() {}

    /// Number of cached interfaces.
    public var count: Int { entries.count }

    /// ``Classifier/classify(all:)``, reusing cached classifications; forgets interfaces that are
    /// gone or whose facts changed.
    public mutating func classify(all interfaces: [InterfaceFacts], with classifier: Classifier) -> [Int32: Classification] {
        var entries = self.entries
        self.entries = [:]
        let result = classifier.classify(all: interfaces) { facts in
            if let cached = entries[facts.index], cached.facts == facts { return cached.classification }
            let classification = classifier.classify(facts)
            entries[facts.index] = Entry(facts, classification)
            return classification
        }
        // Interfaces that went away: only looked for when the counts say some did.
        if entries.count > interfaces.count {
            let present = Set(interfaces.map(\.index))
            let gone = entries.keys.filter { !present.contains($0) }
            for index in gone { entries[index] = nil }
        }
        self.entries = entries
        return result
    }
}
