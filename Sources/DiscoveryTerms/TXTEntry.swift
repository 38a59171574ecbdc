/// One entry of a DNS-SD TXT record: `key=value`, or a bare `key` (value `nil`).
public struct TXTEntry: Hashable, Sendable, Codable {
    /// The key.
    public var key: String
    /// The value; `nil` for a key without `=`.
    public var value: String?

    /// Creates an entry.
    public init(key: String, value: String?) {
        self.key = key
        self.value = value
    }

    /// The order a decoder gives the entries of a TXT object in: by the keys' Unicode scalars. (`String`'s `<` is not
    /// a strict order on every pair of texts — `"e\u{301}"` and `"\u{e9} "` are neither less than the other — so it
    /// could order the same keys two ways.)
    public static func keyPrecedes(_ first: String, _ second: String) -> Bool {
        first.unicodeScalars.lexicographicallyPrecedes(second.unicodeScalars)
    }
}
