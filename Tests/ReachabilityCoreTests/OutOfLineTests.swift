import ReachabilityCore
import Testing

/// `OutOfLine` must behave as the value it holds: a copy never sees a later change of another.
struct OutOfLineTests {
    @Test func aCopyKeepsItsValueWhenTheOtherChanges() {
        var first = OutOfLine([1, 2])
        var second = first
        second.value.append(3)
        #expect(first.value == [1, 2])
        #expect(second.value == [1, 2, 3])
        first.value[0] = 9
        #expect(first.value == [9, 2])
        #expect(second.value == [1, 2, 3])
    }

    /// The queue's use: entries changed in place through a dictionary, while a copy of the
    /// dictionary (a list in progress, say) keeps what it saw.
    @Test func aDictionaryCopyIsUnchangedByAChangeInPlace() {
        var entries: [Int: OutOfLine<[String]>] = [1: OutOfLine(["pending"]), 2: OutOfLine(["paused"])]
        let seen = entries
        entries[1]?.value.append("running")
        if let index = entries.index(forKey: 2) { inPlace(&entries.values[index].value) { $0 = ["succeeded"] } }
        #expect(entries[1]?.value == ["pending", "running"])
        #expect(entries[2]?.value == ["succeeded"])
        #expect(seen[1]?.value == ["pending"])
        #expect(seen[2]?.value == ["paused"])
    }
}
