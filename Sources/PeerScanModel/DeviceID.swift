import Foundation

/// The stable identifier of an item of peerscan's snapshot: a UUID, written in lowercase on the wire.
///
/// A device keeps the first identifier it got, across sources and restarts (the daemon's registry remembers it); a
/// device met for the first time gets the name-based UUID (version 5) of its canonical host name, or of its MAC
/// address for a device without one (see `PeerScanCore`'s `DeviceIdentities`), so scanners agree on it. Clients
/// never derive identifiers: they take them as they come. The two `config` items have fixed identifiers, written
/// here as literals (the daemon's tests check that they are the version 5 UUIDs of `config:scanning` and
/// `config:host` in peerscan's namespace).
public struct DeviceID: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The UUID.
    public var uuid: UUID

    /// Wraps a UUID.
    public init(_ uuid: UUID) { self.uuid = uuid }

    /// Parses the text form of a UUID (any case); `nil` for anything else.
    public init?(text: String) {
        guard let uuid = UUID(uuidString: text) else { return nil }
        self.init(uuid)
    }

    /// The lowercase text form, e.g. `4b7eac9b-f7b0-5bf6-af04-408e064a7ab8`.
    public var description: String { uuid.uuidString.lowercased() }

    public static func < (lhs: DeviceID, rhs: DeviceID) -> Bool { lhs.description < rhs.description }

    /// The identifier of the `scanning` item.
    public static let scanning = DeviceID(UUID(uuid: uuidBytes("e9ccc214-97ef-5094-a5c1-f0cb9c42431b")))

    /// The identifier of the `host` item.
    public static let host = DeviceID(UUID(uuid: uuidBytes("7c036252-be0a-587e-800d-6317b320aeac")))

    /// The bytes of a UUID literal. A literal that is not a UUID is a programming error.
    private static func uuidBytes(_ literal: String) -> uuid_t {
        guard let uuid = UUID(uuidString: literal) else { preconditionFailure("\(literal) is not a UUID") }
        return uuid.uuid
    }
}

extension DeviceID: Codable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let uuid = UUID(uuidString: text) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "\"\(text)\" is not a UUID.")
        }
        self.init(uuid)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
