import Foundation
import PeerScanModel

/// A key a device is known by: its mDNS host name, one of its MAC addresses, or its Bluetooth identity address.
public enum IdentityKey: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// A canonical host name (``DeviceID/canonicalHostName(_:)``: lowercase, no trailing dot).
    case hostName(String)
    /// A MAC address, lowercase `aa:bb:cc:dd:ee:ff`.
    case macAddress(String)
    /// A Bluetooth public or random static address, lowercase `aa:bb:cc:dd:ee:ff` (private addresses are never keys:
    /// they rotate).
    case bluetooth(String)

    /// `host:NAME`, `mac:ADDRESS` or `bluetooth:ADDRESS`, the form the registry stores.
    public var description: String {
        switch self {
        case .hostName(let name): "host:\(name)"
        case .macAddress(let mac): "mac:\(mac)"
        case .bluetooth(let address): "bluetooth:\(address)"
        }
    }

    /// Parses ``description``; `nil` for anything else.
    public init?(_ text: String) {
        if text.hasPrefix("host:"), text.count > 5 {
            self = .hostName(String(text.dropFirst(5)))
        } else if text.hasPrefix("mac:"), text.count > 4 {
            self = .macAddress(String(text.dropFirst(4)))
        } else if text.hasPrefix("bluetooth:"), text.count > 10 {
            self = .bluetooth(String(text.dropFirst(10)))
        } else {
            return nil
        }
    }

    public static func < (lhs: IdentityKey, rhs: IdentityKey) -> Bool { lhs.description < rhs.description }

    /// Parses what a person types for a key: ``description`` (`mac:…`, `host:…`), a MAC address (`AA:BB:…`, any
    /// case), or a host name (a name without a dot is taken as `NAME.local`); `nil` for an empty text.
    public init?(typed text: String) {
        if let key = IdentityKey(text) {
            self = key
            return
        }
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty else { return nil }
        let octets = trimmed.split(separator: ":", omittingEmptySubsequences: false)
        if octets.count == 6, octets.allSatisfy({ $0.count == 2 && $0.allSatisfy(\.isHexDigit) }) {
            self = .macAddress(trimmed.lowercased())
            return
        }
        let name = DeviceID.canonicalHostName(trimmed)
        self = .hostName(name.contains(".") ? name : name + ".local")
    }
}

/// A change to the identities, for the registry to store.
public enum IdentityChange: Hashable, Sendable {
    /// `key` is `id`'s from now on.
    case bound(IdentityKey, DeviceID)
    /// `id` turned out to be the same device as `survivor`: its keys are the survivor's now and `id` is no more.
    case merged(DeviceID, into: DeviceID)
    /// `id` and its keys were forgotten.
    case forgotten(DeviceID)
    /// A person split `key` off `id`: it is `newID`'s now, and no automatic rule puts it back with `id`.
    case split(IdentityKey, from: DeviceID, to: DeviceID)
}

/// Which identifier each key a device was ever known by maps to: what makes a device's identifier sticky.
///
/// ## Rules
/// 1. A host name known before keeps its identifier.
/// 2. Otherwise a host takes the identifier of one of its MAC addresses (the first in order) that no other device
///    present now holds: a MAC-only device that starts announcing mDNS keeps its identifier, and so does a host
///    that comes back under another name. A MAC address shared by two host names present at once (a proxy, a
///    bridge) stays with the first; the second gets an identifier of its own.
/// 3. A MAC-only device takes its MAC address's identifier.
/// 4. Otherwise the identifier is new: the name-based UUID of the host name (``DeviceID/make(hostName:)``), or of
///    the MAC address (``DeviceID/make(macAddress:)``), so that scanners agree on a device they meet for the first
///    time. If that one is held by another device present now, a random one.
///
/// Every key of a device is bound to its identifier the first time it is seen with it, and never moves, except by
/// ``merge(_:into:byPerson:)`` (two known devices turn out to be one, or a person says so: the keys join the
/// survivor's) and ``split(_:from:)`` (a person says a key is a device of its own).
///
/// ## A person's split
/// A split key is kept *apart* from the device it left (persisted with the device): an automatic merge of the two is
/// refused (``areApart(_:_:)``; the device table does not let a host claim a MAC address apart from it either), and
/// rule 2 does not give a host the identifier of a MAC address apart from its name. Only a person's merge joins them
/// again.
///
/// The changes since the last ``takeChanges()`` are kept for the registry. The struct does no I/O.
public struct DeviceIdentities: Sendable {
    private var idByKey: [IdentityKey: DeviceID] = [:]
    private var keysByID: [DeviceID: Set<IdentityKey>] = [:]
    /// Identifiers of devices published at least once (or known from the registry): their next appearance is a
    /// return, not a new device.
    private var seenBefore: Set<DeviceID> = []
    private var changes: [IdentityChange] = []
    /// The keys a person split off each device, kept apart from it.
    private var apartKeys: [DeviceID: Set<IdentityKey>] = [:]

    /// Creates the identities from what the registry stored: every key's identifier, and the keys a person split off
    /// each device.
    public init(bindings: [IdentityKey: DeviceID] = [:], apart: [DeviceID: Set<IdentityKey>] = [:]) {
        idByKey = bindings
        for (key, id) in bindings { keysByID[id, default: []].insert(key) }
        seenBefore = Set(bindings.values)
        apartKeys = apart.filter { !$0.value.isEmpty }
    }

    /// Whether a person split the two devices apart: a key of one was split off the other.
    /// - Complexity: O(k) for k keys of the two.
    public func areApart(_ one: DeviceID, _ other: DeviceID) -> Bool {
        guard one != other else { return false }
        func splitOff(_ keysOf: DeviceID, _ from: DeviceID) -> Bool {
            guard let apart = apartKeys[from], let keys = keysByID[keysOf] else { return false }
            return !apart.isDisjoint(with: keys)
        }
        return splitOff(one, other) || splitOff(other, one)
    }

    /// The keys a person split off `id`, sorted.
    public func keysApart(from id: DeviceID) -> [IdentityKey] { (apartKeys[id] ?? []).sorted() }

    /// The identifier `key` is bound to, if any.
    public func id(for key: IdentityKey) -> DeviceID? { idByKey[key] }

    /// The keys bound to `id`, sorted.
    public func keys(of id: DeviceID) -> [IdentityKey] { (keysByID[id] ?? []).sorted() }

    /// The number of keys bound to `id`.
    /// - Complexity: O(1)
    public func keyCount(of id: DeviceID) -> Int { keysByID[id]?.count ?? 0 }

    /// Whether `id` is a device known now (it has keys).
    public func isKnown(_ id: DeviceID) -> Bool { keysByID[id] != nil }

    /// The number of devices with keys.
    public var count: Int { keysByID.count }

    /// Whether `id` was published before (or stored in the registry), and marks it as published.
    mutating func notePublished(_ id: DeviceID) -> Bool {
        !seenBefore.insert(id).inserted
    }

    /// The identifier of an mDNS host with the given MAC addresses (rules 1, 2 and 4), binding its keys.
    ///
    /// - Parameters:
    ///   - current: The identifier the device has already, if any: it keeps it, and its new keys are bound to it.
    ///   - isAvailable: Whether an identifier may be taken (no other device present now holds it).
    /// - Complexity: O(m log m) for m MAC addresses.
    mutating func identify(
        hostName: String,
        macAddresses: [String],
        current: DeviceID? = nil,
        isAvailable: (DeviceID) -> Bool
    ) -> DeviceID {
        let hostKey = IdentityKey.hostName(DeviceID.canonicalHostName(hostName))
        let macKeys = macAddresses.sorted().map(IdentityKey.macAddress)
        let id: DeviceID
        if let current {
            id = current
        } else if let known = idByKey[hostKey], isAvailable(known) {
            id = known
        } else if let known = macKeys.compactMap({ idByKey[$0] }).first(where: { candidate in
            // Not the device of a MAC address a person split the host name off, or split off the host name's device.
            isAvailable(candidate) && !(apartKeys[candidate]?.contains(hostKey) ?? false)
                && !(idByKey[hostKey].map { areApart($0, candidate) } ?? false)
        }) {
            id = known
        } else {
            id = fresh(DeviceID.make(hostName: hostName), isAvailable: isAvailable)
        }
        for key in [hostKey] + macKeys { bind(key, to: id) }
        return id
    }

    /// The identifier of a device known by one key (a MAC-only device, a Bluetooth identity address: rules 3 and 4),
    /// binding its key.
    ///
    /// - Parameters:
    ///   - preferred: The key's name-based identifier, taken when the key has none and no other device holds it.
    ///   - current: The identifier the device has already, if any.
    ///   - isAvailable: Whether an identifier may be taken (no other device present now holds it).
    mutating func identify(
        key: IdentityKey,
        preferred: DeviceID,
        current: DeviceID? = nil,
        isAvailable: (DeviceID) -> Bool
    ) -> DeviceID {
        if let current {
            bind(key, to: current)
            return current
        }
        if let known = idByKey[key], isAvailable(known) { return known }
        let id = fresh(preferred, isAvailable: isAvailable)
        bind(key, to: id)
        return id
    }

    /// The identifier of a MAC-only device (rules 3 and 4), binding its key.
    ///
    /// - Parameters:
    ///   - current: The identifier the device has already, if any.
    ///   - isAvailable: Whether an identifier may be taken (no other device present now holds it).
    mutating func identify(
        macAddress: String,
        current: DeviceID? = nil,
        isAvailable: (DeviceID) -> Bool
    ) -> DeviceID {
        let key = IdentityKey.macAddress(macAddress)
        if let current {
            bind(key, to: current)
            return current
        }
        if let known = idByKey[key], isAvailable(known) { return known }
        let id = fresh(DeviceID.make(macAddress: macAddress), isAvailable: isAvailable)
        bind(key, to: id)
        return id
    }

    /// Makes every key of `id` the survivor's: two known devices turned out to be one (an automatic rule, refused
    /// for two devices a person split apart), or a person says so (`byPerson`: what kept them apart goes).
    ///
    /// - Returns: Whether the keys moved.
    @discardableResult
    mutating func merge(_ id: DeviceID, into survivor: DeviceID, byPerson: Bool = false) -> Bool {
        guard id != survivor, keysByID[id] != nil, byPerson || !areApart(id, survivor) else { return false }
        let keys = keysByID.removeValue(forKey: id) ?? []
        // What either was kept apart from stays apart from the survivor, but for the keys it has now (the registry's
        // ``IdentityChange/merged(_:into:)`` does the same).
        var apart = (apartKeys.removeValue(forKey: id) ?? []).union(apartKeys[survivor] ?? [])
        apart.subtract(keys.union(keysByID[survivor] ?? []))
        apartKeys[survivor] = apart.isEmpty ? nil : apart
        for key in keys { idByKey[key] = survivor }
        keysByID[survivor, default: []].formUnion(keys)
        seenBefore.insert(survivor)
        changes.append(.merged(id, into: survivor))
        return true
    }

    /// Gives `key` a device of its own (a person's split): a new identifier — the key's name-based one if no device
    /// has it, else a random one — bound to `key` alone, kept apart from `id` from now on. The new device counts as
    /// seen before (the key was).
    ///
    /// - Returns: The new identifier; `nil` if `key` is not bound to `id`, or is its only key.
    mutating func split(_ key: IdentityKey, from id: DeviceID) -> DeviceID? {
        guard idByKey[key] == id, var keys = keysByID[id], keys.count > 1 else { return nil }
        let preferred: DeviceID =
            switch key {
            case .hostName(let name): DeviceID.make(hostName: name)
            case .macAddress(let mac): DeviceID.make(macAddress: mac)
            case .bluetooth(let address): DeviceID.make(bluetoothAddress: address)
            }
        let newID = fresh(preferred, isAvailable: { $0 != id })
        keys.remove(key)
        keysByID[id] = keys
        keysByID[newID] = [key]
        idByKey[key] = newID
        apartKeys[id, default: []].insert(key)
        seenBefore.insert(newID)
        changes.append(.split(key, from: id, to: newID))
        return newID
    }

    /// Forgets `id` and its keys: the device is new if it comes back.
    mutating func forget(_ id: DeviceID) {
        seenBefore.remove(id)
        apartKeys[id] = nil
        guard let keys = keysByID.removeValue(forKey: id) else { return }
        for key in keys where idByKey[key] == id { idByKey[key] = nil }
        changes.append(.forgotten(id))
    }

    /// The changes since the last take, in order.
    mutating func takeChanges() -> [IdentityChange] {
        defer { changes = [] }
        return changes
    }

    /// Binds `key` to `id` unless it is bound already (a key never moves, but by a merge).
    private mutating func bind(_ key: IdentityKey, to id: DeviceID) {
        guard idByKey[key] == nil else { return }
        idByKey[key] = id
        keysByID[id, default: []].insert(key)
        changes.append(.bound(key, id))
    }

    private func fresh(_ preferred: DeviceID, isAvailable: (DeviceID) -> Bool) -> DeviceID {
        isAvailable(preferred) && keysByID[preferred] == nil ? preferred : DeviceID(UUID())
    }
}
