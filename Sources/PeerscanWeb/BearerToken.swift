/// The secret a request shows in `Authorization: Bearer TOKEN`, compared in constant time.
public struct BearerToken: Sendable {
    private let bytes: [UInt8]

    /// A token of this text (its UTF-8 bytes).
    /// - Precondition: `text` is not empty (an empty token would let every request in).
    public init(_ text: String) {
        precondition(!text.isEmpty, "an empty bearer token")
        bytes = Array(text.utf8)
    }

    /// Whether an `Authorization` header value carries this token (`Bearer` in any case, one space, the token).
    ///
    /// - Complexity: O(n) in the header's length, whatever its content: no early exit on the first different byte,
    ///   so the time taken tells nothing of how much of the token was right.
    public func isCarried(by authorization: String?) -> Bool {
        guard let authorization else { return false }
        let scheme = "bearer "
        guard authorization.count > scheme.count, authorization.lowercased().hasPrefix(scheme) else { return false }
        return Self.constantTimeEqual(Array(authorization.utf8.dropFirst(scheme.utf8.count)), bytes)
    }

    /// Whether two byte strings are equal, in time that depends on their lengths only.
    static func constantTimeEqual(_ left: [UInt8], _ right: [UInt8]) -> Bool {
        var difference = UInt8(truncatingIfNeeded: left.count ^ right.count)
        if left.count != right.count { difference |= 1 }
        for index in 0..<max(left.count, right.count) {
            let a = index < left.count ? left[index] : 0
            let b = index < right.count ? right[index] : 0
            difference |= a ^ b
        }
        return difference == 0
    }
}
