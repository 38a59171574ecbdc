extension PeerScanWire {
    /// `MergeDevices(id:others:)` parameters: the devices `others` are `id`'s from now on.
    public struct MergeDevicesParameters: Codable, Sendable, Hashable {
        /// The device that stays.
        public var id: String
        /// The devices merged into it.
        public var others: [String]

        /// Creates parameters.
        public init(id: String, others: [String]) {
            self.id = id
            self.others = others
        }
    }

    /// `MergeDevices` reply: no fields.
    public struct MergeDevicesReply: Codable, Sendable {
        /// Creates a reply.
        public init() {}
    }

    /// `SplitDevice(id:key:)` parameters: `key` (`mac:ADDRESS` or `host:NAME`, or a bare MAC address or host name)
    /// leaves the device `id` and becomes a device of its own.
    public struct SplitDeviceParameters: Codable, Sendable, Hashable {
        /// The device the key leaves.
        public var id: String
        /// The key.
        public var key: String

        /// Creates parameters.
        public init(id: String, key: String) {
            self.id = id
            self.key = key
        }
    }

    /// `SplitDevice` reply: the identifier of the key's own device.
    public struct SplitDeviceReply: Codable, Sendable, Hashable {
        /// The key's device.
        public var id: String

        /// Creates a reply.
        public init(id: String) { self.id = id }
    }
}
