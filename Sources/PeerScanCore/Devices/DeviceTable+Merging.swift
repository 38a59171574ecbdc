// A person's merge and split: "these devices are one", "this key is a device of its own".

import PeerScanModel

/// Why a person's merge or split was refused.
public struct DeviceEditError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong.
    public enum Code: Sendable, Hashable {
        /// No device has the identifier ``DeviceEditError/id``.
        case unknownDevice
        /// The device is named twice (or merged into itself).
        case sameDevice
        /// Two of the devices are mDNS hosts in the snapshot now: one device is one host name at a time.
        case twoMDNSHosts
        /// The key is not one of the device's.
        case keyNotBound
        /// The key is the device's only one: it is a device of its own already.
        case onlyKey
        /// The device is a Bluetooth private address no IRK resolves: it has no key to merge (give it an IRK).
        case ephemeral
    }

    /// What went wrong.
    public var code: Code
    /// The device concerned.
    public var id: DeviceID
    /// The other device (``Code/twoMDNSHosts``), if any.
    public var other: DeviceID?
    /// The key concerned (``Code/keyNotBound``, ``Code/onlyKey``), if any.
    public var key: IdentityKey?

    /// Creates an error.
    public init(_ code: Code, id: DeviceID, other: DeviceID? = nil, key: IdentityKey? = nil) {
        self.code = code
        self.id = id
        self.other = other
        self.key = key
    }

    public var description: String {
        switch code {
        case .unknownDevice: "no device has the id \(id)"
        case .sameDevice: "device \(id) is named twice"
        case .twoMDNSHosts: "devices \(id) and \(other.map { "\($0)" } ?? "?") are both mDNS hosts present now"
        case .keyNotBound: "\(key.map { "\($0)" } ?? "the key") is not a key of device \(id)"
        case .onlyKey: "\(key.map { "\($0)" } ?? "the key") is the only key of device \(id)"
        case .ephemeral: "device \(id) is a Bluetooth private address no IRK resolves: give it an IRK to keep it"
        }
    }
}

extension DeviceTable {
    /// A person's merge: the keys of `others` (MAC addresses, host names) are `survivor`'s from now on, their labels
    /// join its label, and their items go in favour of its item at the next take (one changeset, a
    /// ``Event/merged(_:into:)`` each). What kept them apart (a split) goes.
    ///
    /// - Throws: ``DeviceEditError`` — an unknown device, one named twice, or two mDNS hosts present now (a device is
    ///   derived from one host name at a time).
    /// - Complexity: O(k) for k keys of the devices.
    public mutating func merge(_ others: [DeviceID], into survivor: DeviceID) throws(DeviceEditError) {
        let all = [survivor] + others
        for id in all where !isKnown(id) { throw DeviceEditError(.unknownDevice, id: id) }
        var named: Set<DeviceID> = []
        for id in all where !named.insert(id).inserted { throw DeviceEditError(.sameDevice, id: id) }
        let hosts = all.filter { if case .host? = published.origin(of: $0) { true } else { false } }
        if hosts.count > 1 { throw DeviceEditError(.twoMDNSHosts, id: hosts[0], other: hosts[1]) }
        for id in all {
            guard case .bluetooth(let identity)? = published.origin(of: id) else { continue }
            switch identity {
            case .ephemeral: throw DeviceEditError(.ephemeral, id: id)
            case .address(let address) where identities.id(for: .bluetooth(address)) == nil:
                // Not admitted yet: a person's merge admits it (its key bound to the id it is listed with).
                _ = identities.identify(
                    key: .bluetooth(address),
                    preferred: id,
                    current: id,
                    isAvailable: { _ in true }
                )
            case .address, .resolved: break
            }
        }
        for other in others {
            let keys = identities.keys(of: other)
            if let origin = published.origin(of: other), let old = unpublish(other)?.device {
                outbox.add(.merged(old, into: survivor))
                markForDerivation(origin)
            } else {
                outbox.add(.merged(Self.absentDevice(other, keys: keys), into: survivor))
            }
            identities.merge(other, into: survivor, byPerson: true)
            labels.merge(other, into: survivor)
            mergeIRK(other, into: survivor)
            for key in keys { markDirty(key) }
        }
        if let origin = published.origin(of: survivor) { markForDerivation(origin) }
        for key in identities.keys(of: survivor) { markDirty(key) }
    }

    /// A person's split: `key` leaves the device `id` for a device of its own, with a new identifier, and no
    /// automatic rule puts it back (see ``DeviceIdentities``). Both devices are derived again at the next take (one
    /// changeset: `id`'s item updated, or removed if nothing is left to derive it; the key's device inserted once it
    /// is seen), with an ``Event/split(_:from:into:)``.
    ///
    /// - Returns: The key's new identifier.
    /// - Throws: ``DeviceEditError`` — an unknown device, a key not its, or its only key.
    public mutating func split(_ key: IdentityKey, from id: DeviceID) throws(DeviceEditError) -> DeviceID {
        guard isKnown(id) else { throw DeviceEditError(.unknownDevice, id: id) }
        guard identities.id(for: key) == id else { throw DeviceEditError(.keyNotBound, id: id, key: key) }
        let keys = identities.keys(of: id)
        guard let newID = identities.split(key, from: id) else { throw DeviceEditError(.onlyKey, id: id, key: key) }
        if let origin = published.origin(of: id), let old = unpublish(id) {
            splits.displace(id, item: old)  // published again by whichever origin derives it now: an update
            markForDerivation(origin)
        }
        splits.noteSplitOff(newID)
        for each in keys { markDirty(each) }
        outbox.add(.split(key, from: id, into: newID))
        return newID
    }

    /// Whether a device has this identifier: published, known by its keys (the registry's), or by its IRK alone.
    func isKnown(_ id: DeviceID) -> Bool {
        identities.isKnown(id) || published[id] != nil || bluetooth.key(of: id) != nil
    }

    /// Takes a device out of the published ones (its item goes at the next take unless it is published again).
    /// - Returns: The device's item as it was published, or `nil` if it was not.
    private mutating func unpublish(_ id: DeviceID) -> ScanItem? {
        guard let old = published.remove(id)?.item else { return nil }
        silent.remove(id)
        outbox.add(Change(id: id, item: nil))
        return old
    }

    /// A device not in the snapshot, for its `device merged` line: its keys as its host name and MAC addresses.
    private static func absentDevice(_ id: DeviceID, keys: [IdentityKey]) -> Device {
        var hostName: String?
        var macs: [String] = []
        for key in keys {
            switch key {
            case .hostName(let name): hostName = hostName ?? name
            case .macAddress(let mac): macs.append(mac)
            case .bluetooth: break
            }
        }
        return Device(
            id: id,
            hostName: hostName,
            displayName: nil,
            addresses: [],
            interfaces: [],
            services: [],
            macAddresses: macs,
            online: false
        )
    }
}
