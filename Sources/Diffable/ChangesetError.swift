/// A changeset that does not fit the snapshot it was applied to. Thrown by ``Snapshot/applying(_:)``, which never
/// traps on a changeset it did not compute itself (one received from the network, for example).
public struct ChangesetError: Error, Hashable, Sendable {
    /// What did not fit. New codes may be added; switch over them with a `default` case.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        fileprivate enum Base: Hashable, Sendable {
            case positionOutOfRange, identifierMismatch, positionConflict, sectionNotEmpty, duplicateIdentifier
        }
        fileprivate var base: Base

        /// A position is outside the snapshot (at that step of the replay).
        public static let positionOutOfRange = Code(base: .positionOutOfRange)
        /// The element at a position does not have the identifier the changeset names.
        public static let identifierMismatch = Code(base: .identifierMismatch)
        /// Two changes name the same position.
        public static let positionConflict = Code(base: .positionConflict)
        /// A deleted section still holds items that the changeset neither deletes nor moves.
        public static let sectionNotEmpty = Code(base: .sectionNotEmpty)
        /// The result would hold an identifier twice.
        public static let duplicateIdentifier = Code(base: .duplicateIdentifier)

        public var description: String {
            switch base {
            case .positionOutOfRange: "position out of range"
            case .identifierMismatch: "identifier mismatch"
            case .positionConflict: "position conflict"
            case .sectionNotEmpty: "section not empty"
            case .duplicateIdentifier: "duplicate identifier"
            }
        }
    }

    /// What did not fit.
    public var code: Code
    /// Which change did not fit, naming its identifier and positions.
    public var message: String

    /// Creates an error.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }
}

extension ChangesetError: CustomStringConvertible {
    public var description: String { "\(code): \(message)" }
}
