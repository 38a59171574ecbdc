/// Marks one longest strictly increasing subsequence of `values`.
///
/// Patience sorting with predecessor links (Fredman 1975). Used to keep the largest set of elements in place, so
/// that every other element is reported as moved — which makes the number of moves minimal.
///
/// - Parameter values: Distinct integers (old positions, in new order).
/// - Returns: A mask, parallel to `values`, that is `true` for the elements on the subsequence.
/// - Complexity: O(m log m) comparisons of integers in the worst case and O(m) when `values` is made of increasing
///   runs (each element of a run is placed in O(1), next to its predecessor), where m is `values.count`; no hashing.
@inlinable
func longestIncreasingSubsequenceMask(_ values: UnsafeBufferPointer<Int>) -> [Bool] {
    let count = values.count
    var mask = [Bool](repeating: false, count: count)
    guard count > 0 else { return mask }
    // tails[k]: the index (into values) of the smallest tail of an increasing subsequence of length k + 1.
    // predecessor[i]: the element before values[i] on the subsequence ending at values[i], or -1.
    // Both are written before they are read, so they need no initialisation.
    var tails = [Int](unsafeUninitializedCapacity: count) { _, initialized in initialized = count }
    var predecessor = [Int](unsafeUninitializedCapacity: count) { _, initialized in initialized = count }
    var length = 0
    // Where the previous two elements went: a run of increasing values continues right after one of them (the
    // second one when a single element out of order interrupts the run).
    var previousLow = -1
    var earlierLow = -1
    tails.withUnsafeMutableBufferPointer { tails in
        predecessor.withUnsafeMutableBufferPointer { predecessor in
            // Whether value belongs at position k: the first k with values[tails[k]] >= value, or length.
            @inline(__always) func belongs(_ value: Int, at k: Int) -> Bool {
                (k == 0 || values[tails[k - 1]] < value) && (k == length || value <= values[tails[k]])
            }
            for index in 0..<count {
                let value = values[index]
                var low: Int
                if belongs(value, at: previousLow + 1) {
                    low = previousLow + 1
                } else if belongs(value, at: earlierLow + 1) {
                    low = earlierLow + 1
                } else {
                    // Binary search without a data-dependent branch (length > 0 here, as position 0 fits an empty
                    // list): base ends on the last position whose value is below `value`, if any.
                    var base = 0
                    var remaining = length
                    while remaining > 1 {
                        let half = remaining / 2
                        base = values[tails[base + half]] < value ? base + half : base
                        remaining -= half
                    }
                    low = values[tails[base]] < value ? base + 1 : base
                }
                predecessor[index] = low > 0 ? tails[low - 1] : -1
                tails[low] = index
                if low == length { length += 1 }
                earlierLow = previousLow
                previousLow = low
            }
        }
    }
    var index = tails[length - 1]
    while index >= 0 {
        mask[index] = true
        index = predecessor[index]
    }
    return mask
}
