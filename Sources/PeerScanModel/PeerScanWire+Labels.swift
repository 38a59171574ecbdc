extension PeerScanWire {
    /// `SetDeviceLabel(id:name:note:important:)` parameters: the fields given change, the others stay; an empty
    /// `name` or `note` clears it.
    public struct SetDeviceLabelParameters: Codable, Sendable, Hashable {
        /// The device's identifier.
        public var id: String
        /// The name to show for it (`""` clears it).
        public var name: String?
        /// A note (`""` clears it).
        public var note: String?
        /// Whether it is important.
        public var important: Bool?

        /// Creates parameters.
        public init(id: String, name: String? = nil, note: String? = nil, important: Bool? = nil) {
            self.id = id
            self.name = name
            self.note = note
            self.important = important
        }

        /// The change the parameters ask for.
        public var edit: DeviceLabelEdit { DeviceLabelEdit(name: name, note: note, isImportant: important) }
    }

    /// `SetDeviceLabel` reply: the label as it is now.
    public struct SetDeviceLabelReply: Codable, Sendable, Hashable {
        /// The name, if any.
        public var name: String?
        /// The note, if any.
        public var note: String?
        /// Whether the device is important.
        public var important: Bool

        /// Creates a reply.
        public init(_ label: DeviceLabel) {
            name = label.name
            note = label.note
            important = label.isImportant
        }
    }
}
