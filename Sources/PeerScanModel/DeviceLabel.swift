/// What a person said about a device (`peerscanctl set`): a name for it, a note, and whether it matters.
///
/// The daemon keeps it in its registry under the device's identifier, so it follows the device across restarts,
/// merges and new keys (a MAC-only device that starts announcing mDNS keeps its identifier, and so its label).
public struct DeviceLabel: Hashable, Sendable {
    /// The name to show instead of the discovered one (the item's `displayName`); `nil` for none.
    public var name: String?
    /// Free text; `nil` for none.
    public var note: String?
    /// Whether the device matters: its presence lines are logged at warning.
    public var isImportant: Bool

    /// Creates a label.
    public init(name: String? = nil, note: String? = nil, isImportant: Bool = false) {
        self.name = name
        self.note = note
        self.isImportant = isImportant
    }

    /// No label: nothing said.
    public static let none = DeviceLabel()

    /// Whether nothing is said.
    public var isEmpty: Bool { self == .none }
}

/// A change of a device's label: the fields given replace the label's, the others stay; an empty name or note
/// clears it.
public struct DeviceLabelEdit: Hashable, Sendable {
    /// The new name (`""` clears it); `nil` keeps the current one.
    public var name: String?
    /// The new note (`""` clears it); `nil` keeps the current one.
    public var note: String?
    /// Whether the device is important from now on; `nil` keeps the current setting.
    public var isImportant: Bool?

    /// Creates an edit.
    public init(name: String? = nil, note: String? = nil, isImportant: Bool? = nil) {
        self.name = name
        self.note = note
        self.isImportant = isImportant
    }

    /// Whether the edit changes nothing.
    public var isEmpty: Bool { name == nil && note == nil && isImportant == nil }

    /// `label` with this edit applied.
    public func applied(to label: DeviceLabel) -> DeviceLabel {
        var result = label
        if let name { result.name = name.isEmpty ? nil : name }
        if let note { result.note = note.isEmpty ? nil : note }
        if let isImportant { result.isImportant = isImportant }
        return result
    }
}
