extension PeerScanWire {
    /// The error of SetDeviceIRK for a key that is not 32 hex digits.
    public static let invalidIRKError = "io.peerscan.InvalidIRK"

    /// `SetDeviceIRK(id:irk:)` parameters: bind `irk` to the device `id`, or unbind its key (`nil`).
    public struct SetDeviceIRKParameters: Codable, Sendable, Hashable {
        /// The device.
        public var id: String
        /// 32 hex digits, or `nil` to remove the device's key.
        public var irk: String?

        /// Creates parameters.
        public init(id: String, irk: String?) {
            self.id = id
            self.irk = irk
        }

        private enum CodingKeys: String, CodingKey { case id, irk }

        /// Encodes `irk` as `null` when it is `nil` (an explicit removal).
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(id, forKey: .id)
            try container.encode(irk, forKey: .irk)
        }
    }

    /// `SetDeviceIRK` reply: no fields.
    public struct SetDeviceIRKReply: Codable, Sendable {
        /// Creates a reply.
        public init() {}
    }
}

extension PeerScanWire.ErrorReply {
    /// `InvalidIRK`: the key is not 32 hex digits (the reason never repeats the key).
    public static func invalidIRK(reason: String) -> PeerScanWire.ErrorReply {
        PeerScanWire.ErrorReply(name: PeerScanWire.invalidIRKError, parameters: ["reason": reason])
    }
}
