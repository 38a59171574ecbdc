import HeapModule

/// When each of a set of keys is next due, and which are due now: a dictionary beside a min-heap, so that the next
/// deadline and the due keys cost O(log n) each instead of a scan of every key.
///
/// Setting a key's deadline pushes an entry and leaves the old one in the heap; an entry whose deadline is no longer
/// its key's is dropped when it reaches the top, and the heap is rebuilt from the dictionary once it holds more than
/// twice the keys (plus a small slack), so that it stays O(n) for n keys. A value the owner mutates; no I/O.
///
/// ## Performance
/// Setting a deadline is O(log n) amortized; ``next`` and ``popDue(now:)`` are O(log n) per entry they drop or return.
struct DeadlineQueue<Key: Hashable & Sendable>: Sendable {
    private struct Entry: Comparable, Sendable {
        var due: Duration
        var key: Key
        static func < (lhs: Entry, rhs: Entry) -> Bool { lhs.due < rhs.due }
        static func == (lhs: Entry, rhs: Entry) -> Bool { lhs.due == rhs.due && lhs.key == rhs.key }
    }

    private var dueByKey: [Key: Duration] = [:]
    private var heap = Heap<Entry>()

    /// The number of keys with a deadline.
    var count: Int { dueByKey.count }

    /// The number of entries in the heap, stale ones included (for tests: it stays O(``count``)).
    var heapCount: Int { heap.count }

    /// The deadline of `key` (`nil`: none).
    subscript(key: Key) -> Duration? {
        get { dueByKey[key] }
        set {
            guard dueByKey[key] != newValue else { return }
            dueByKey[key] = newValue
            if let newValue { heap.insert(Entry(due: newValue, key: key)) }
            if heap.count > 2 * dueByKey.count + 64 {
                heap = Heap(dueByKey.map { Entry(due: $0.value, key: $0.key) })
            }
        }
    }

    /// The earliest deadline, if any.
    mutating func next() -> Duration? {
        dropStale()
        return heap.min?.due
    }

    /// Removes and returns the keys due at `now` (deadline ≤ now), earliest first.
    mutating func popDue(now: Duration) -> [Key] {
        var due: [Key] = []
        while let top = dropStale(), top.due <= now {
            heap.removeMin()
            dueByKey[top.key] = nil
            due.append(top.key)
        }
        return due
    }

    /// Forgets every deadline.
    mutating func removeAll() {
        dueByKey = [:]
        heap = Heap()
    }

    /// Drops the entries at the top that are no longer their key's deadline; returns the top left.
    @discardableResult
    private mutating func dropStale() -> Entry? {
        while let top = heap.min, dueByKey[top.key] != top.due { heap.removeMin() }
        return heap.min
    }
}
