internal import CCrypto
internal import POSIXText

/// A failed libcrypto call: the call, and the reasons OpenSSL's error queue gave for it.
public struct LibcryptoError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The libcrypto call that failed, e.g. `"EVP_Digest(SHA-1)"`.
    public var operation: String
    /// OpenSSL's packed error codes (`ERR_get_error`), oldest first; empty when the queue held none.
    public var codes: [UInt]
    /// The text of each code (`ERR_error_string_n`), in the same order.
    public var reasons: [String]

    /// Creates an error from its parts.
    public init(operation: String, codes: [UInt], reasons: [String]) {
        self.operation = operation
        self.codes = codes
        self.reasons = reasons
    }

    /// `operation: reason; reason`, or `operation: no reason in OpenSSL's error queue`.
    public var description: String {
        "\(operation): \(reasons.isEmpty ? "no reason in OpenSSL's error queue" : reasons.joined(separator: "; "))"
    }
}

extension LibcryptoError {
    /// The one conversion from a failed call: takes (and so clears) this thread's OpenSSL error queue.
    init(drainingQueueAfter operation: String) {
        var codes: [UInt] = []
        var reasons: [String] = []
        while case let code = ERR_get_error(), code != 0 {
            var text = [CChar](repeating: 0, count: 256)  // OpenSSL asks for at least 256 bytes
            ERR_error_string_n(code, &text, text.count)
            codes.append(UInt(code))
            reasons.append(POSIXText.string(fromBuffer: text))
        }
        self.init(operation: operation, codes: codes, reasons: reasons)
    }
}
