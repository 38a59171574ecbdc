// A person's edits of the devices as one value, carried whole from the socket (io.peerscan's handler) through the scan
// service's queue (``StoreInput/edit(_:)``) to the one switch below. A new edit costs a case here and its table method.

import PeerScanModel

/// A person's edit of the devices, with the reply its sender waits for.
///
/// The reply is typed per edit: it is the table method's outcome, answered once the change is in the snapshot.
public enum DeviceEdit: Sendable {
    /// A function that takes an edit's outcome to its sender.
    public typealias Reply<Outcome> = @Sendable (Outcome) -> Void

    /// Change a device's label (``DeviceTable/setLabel(_:of:)``); the reply gets the label now, `nil` for an unknown
    /// device.
    case setLabel(DeviceLabelEdit, of: DeviceID, reply: Reply<DeviceLabel?>)
    /// Merge devices into a survivor (``DeviceTable/merge(_:into:)``).
    case merge([DeviceID], into: DeviceID, reply: Reply<Result<Void, DeviceEditError>>)
    /// Split a key off a device (``DeviceTable/split(_:from:)``); the reply gets the key's new identifier.
    case split(IdentityKey, from: DeviceID, reply: Reply<Result<DeviceID, DeviceEditError>>)
    /// Bind a Bluetooth IRK to a device, or remove its key (`nil`) (``DeviceTable/setIRK(_:for:)``).
    case setIRK(IdentityResolvingKey?, for: DeviceID, reply: Reply<Result<Void, DeviceEditError>>)
    /// Forget devices and their keys (``DeviceTable/forget(_:now:)``); the reply gets whether each was known.
    case forget([DeviceID], reply: Reply<[Bool]>)
}

extension DeviceTable {
    /// Applies a person's edit.
    ///
    /// - Parameters:
    ///   - edit: The edit.
    ///   - now: The time on the store's clock (a forgotten device's last answer).
    /// - Returns: The edit's reply with its outcome, for the caller to send once the change is published.
    /// - Complexity: That of the edit's table method.
    public mutating func apply(_ edit: DeviceEdit, now: Duration) -> @Sendable () -> Void {
        switch edit {
        case .setLabel(let change, let id, let reply):
            let label = setLabel(change, of: id)
            return { reply(label) }
        case .merge(let others, let survivor, let reply):
            let outcome = Result { () throws(DeviceEditError) in try merge(others, into: survivor) }
            return { reply(outcome) }
        case .split(let key, let id, let reply):
            let outcome = Result { () throws(DeviceEditError) in try split(key, from: id) }
            return { reply(outcome) }
        case .setIRK(let key, let id, let reply):
            let outcome = Result { () throws(DeviceEditError) in try setIRK(key, for: id) }
            return { reply(outcome) }
        case .forget(let ids, let reply):
            let known = ids.map { forget($0, now: now) }
            return { reply(known) }
        }
    }
}
