/// A value kept on the heap and copied on write, as `Array` keeps its elements: a dictionary
/// of large values holds one reference per entry, so when it grows it moves 8 bytes a value
/// instead of the whole value. (The queue's 960-byte job entries: the resize at 3,072 jobs
/// moved 3 MB into 8 MB of new pages and held an add for 5-11 ms; each later doubling costs twice
/// that.) Mutating ``value`` in place copies it only when another copy shares the storage.
package struct OutOfLine<Value> {
    private final class Storage {
        var value: Value
        init(_ value: Value) { self.value = value }
    }

    private var storage: Storage

    package init(_ value: Value) { storage = Storage(value) }

    package var value: Value {
        // Read in place: a caller reading one field copies nothing else.
        _read { yield storage.value }
        _modify {
            if !isKnownUniquelyReferenced(&storage) { storage = Storage(storage.value) }
            yield &storage.value
        }
    }
}

// The storage is written only through `value`'s `_modify`, after it made itself the only
// reference: no two holders ever share a storage that is written, as with `Array`'s buffer.
extension OutOfLine: @unchecked Sendable where Value: Sendable {}
