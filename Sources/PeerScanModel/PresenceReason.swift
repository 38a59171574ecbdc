/// Why a device is online or offline: how it last came online, or what went unanswered when it went offline.
///
/// Its text is compact and stable, for the wire and the terminal: `answered via=arp,ndp` (what answered: `arp`, `ndp`
/// — the kernel's neighbour entries for its IPv4, IPv6 addresses —, `mdns`: its mDNS records or an answer to a
/// question, or `ble`: its Bluetooth LE advertisements), `unanswered asked=arp,mdns` (what was asked and not
/// answered; `asked=ble`: no advertisement within `--bluetooth-away`), `withdrawn` (a device judged by its mDNS
/// records alone, whose records went).
public struct PresenceReason: Hashable, Sendable, CustomStringConvertible {
    /// The kind of reason.
    public enum Kind: String, Hashable, Sendable {
        /// It answered (online).
        case answered
        /// It was asked and did not answer (offline).
        case unanswered
        /// Its mDNS records went (offline).
        case withdrawn
    }

    /// The kind.
    public var kind: Kind
    /// What answered (``Kind/answered``), or what was asked and not answered (``Kind/unanswered``): `arp`, `ndp`,
    /// `mdns`, `ble`, in that order; empty for ``Kind/withdrawn``.
    public var means: [String]

    /// The means of a device's Bluetooth LE advertisements: `ble`.
    public static let bluetoothMeans = "ble"

    /// Creates a reason.
    public init(_ kind: Kind, _ means: [String] = []) {
        self.kind = kind
        self.means = means
    }

    /// Parses ``description``; `nil` for anything else.
    public init?(_ text: String) {
        let parts = text.split(separator: " ", maxSplits: 1).map(String.init)
        guard let first = parts.first, let kind = Kind(rawValue: first) else { return nil }
        guard parts.count == 2 else {
            self.init(kind)
            return
        }
        let expected = kind == .answered ? "via=" : "asked="
        guard kind != .withdrawn, parts[1].hasPrefix(expected) else { return nil }
        self.init(kind, parts[1].dropFirst(expected.count).split(separator: ",").map(String.init))
    }

    /// The key its means go under: `via` for an answer, `asked` for what went unanswered.
    public var meansKey: String { kind == .answered ? "via" : "asked" }

    public var description: String {
        means.isEmpty ? kind.rawValue : "\(kind.rawValue) \(meansKey)=\(means.joined(separator: ","))"
    }
}

extension PresenceReason: Codable {
    /// Decodes the text form (``description``).
    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let reason = PresenceReason(text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "\(text)"))
        }
        self = reason
    }

    /// Encodes the text form (``description``).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
