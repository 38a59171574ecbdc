// The device table's Bluetooth part: advertisements become devices (one per identity address, per IRK-bound device,
// or per ephemeral private address), online while they advertise and offline `away` after the last advertisement —
// for a temporary BlueZ device (neither paired nor bonded), online while BlueZ holds its object (bluetoothd removes it
// after `TemporaryTimeout` without an advertisement) and offline `away` after the removal.
// A Bluetooth device merged with a LAN device (a person's merge, keys `bluetooth:<address>`; or an IRK bound to the
// LAN device) is that device: the LAN origin derives it with the Bluetooth facts attached.

import Discovery
import PeerScanModel

extension DeviceTable {
    /// Takes what the Bluetooth source observed. A temporary device is heard while BlueZ holds its object (its
    /// removal, or its adapter's, starts the away time); any other by its advertisements' `lastSeen`.
    /// - Complexity: O(k) for k IRKs the first time a resolvable private address is heard, O(1) after; O(a) for a
    ///   advertisers when the adapters change.
    public mutating func observe(bluetooth observation: BluetoothObservation, now: Duration) {
        switch observation {
        case .advertised(let advertisement):
            let previous = bluetooth.byAddress[advertisement.address]
            let identity = identity(of: advertisement.address, type: advertisement.addressType)
            guard makeRoom(for: identity, now: now) else {
                bluetooth.resolver.forget(advertisement.address)  // not held: every device listed is a person's
                return
            }
            bluetooth.insert(
                BluetoothAdvertiser(
                    advertisement: advertisement,
                    identity: identity,
                    bars: BluetoothSignal.bars(rssi: advertisement.rssi, previous: previous?.bars),
                    isPresent: advertisement.isTemporary
                ),
                now: now
            )
        case .removed(let adapter, let address):
            bluetooth.objectRemoved(address: address, adapter: adapter, now: now)
        case .adapters(let adapters):
            // An adapter gone (or bluetoothd: no adapter) takes its objects without their own removals.
            let names = Set(adapters.map(\.name))
            for (address, advertiser) in bluetooth.byAddress
            where advertiser.isPresent && !names.contains(advertiser.advertisement.adapter) {
                bluetooth.objectRemoved(address: address, adapter: nil, now: now)
            }
        }
    }

    /// Binds an Identity Resolving Key to a device (`nil`: removes its key). Every resolvable private address heard
    /// now is resolved again: an ephemeral device the key resolves becomes the device (an update of its item when the
    /// key is bound to the ephemeral device's own id).
    ///
    /// - Throws: ``DeviceEditError`` with ``DeviceEditError/Code/unknownDevice`` for an id no device has.
    /// - Complexity: O(a·k) for a private addresses heard and k keys.
    public mutating func setIRK(_ key: IdentityResolvingKey?, for id: DeviceID) throws(DeviceEditError) {
        guard isKnown(id) else { throw DeviceEditError(.unknownDevice, id: id) }
        bindIRK(key, to: id)
    }

    /// Binds `key` to `id` (or removes its key) and resolves every private address heard now again.
    mutating func bindIRK(_ key: IdentityResolvingKey?, to id: DeviceID) {
        bluetooth.resolver.setKey(key, for: id)
        bluetooth.keyChanges[id] = .some(key)
        for (address, advertiser) in bluetooth.byAddress
        where advertiser.advertisement.addressType == .resolvablePrivate {
            let identity = identity(of: address, type: .resolvablePrivate)
            guard identity != advertiser.identity else { continue }
            // The item of the old identity stays the device's when the id is the same (no `forgotten`, no `new`).
            let oldOrigin = Origin.bluetooth(advertiser.identity)
            if let held = idByOrigin[oldOrigin], case .resolved(let target) = identity, held == target {
                idByOrigin[oldOrigin] = nil
                idByOrigin[.bluetooth(identity)] = held
                origins[held] = .bluetooth(identity)
            }
            var moved = advertiser
            moved.identity = identity
            bluetooth.insert(moved)
        }
    }

    /// Moves `id`'s IRK to `survivor` (a person's merge), unless the survivor has one.
    mutating func mergeIRK(_ id: DeviceID, into survivor: DeviceID) {
        guard let key = bluetooth.resolver.keys[id] else { return }
        bluetooth.resolver.merge(id, into: survivor)
        bluetooth.keyChanges[id] = .some(nil)
        if bluetooth.resolver.keys[survivor] == key { bluetooth.keyChanges[survivor] = .some(key) }
        for (address, advertiser) in bluetooth.byAddress where advertiser.identity == .resolved(id) {
            var moved = advertiser
            moved.identity = identity(of: address, type: .resolvablePrivate)
            bluetooth.insert(moved)
        }
    }

    /// The key changes since the last take, for the registry (`nil`: removed).
    public mutating func takeIRKChanges() -> [DeviceID: IdentityResolvingKey?] {
        defer { bluetooth.keyChanges = [:] }
        return bluetooth.keyChanges
    }

    /// The earliest time a Bluetooth device turns offline, is admitted or goes, if any: the store asks to be woken
    /// then.
    /// - Complexity: O(log b) for b Bluetooth identities (amortized).
    public mutating func nextBluetoothDeadline() -> Duration? {
        bluetooth.deadlines.next()
    }

    /// The identity of an advertiser's address now.
    private mutating func identity(of address: String, type: BluetoothAddressType) -> BluetoothIdentity {
        var resolved: DeviceID?
        if type == .resolvablePrivate {
            do {
                resolved = try bluetooth.resolver.resolve(address)
            } catch {
                // AES-128 from the system's libcrypto failed (out of memory, no provider): the address stays its own,
                // ephemeral device, and the failure is logged once.
                if !bluetooth.resolveFailureLogged {
                    bluetooth.resolveFailureLogged = true
                    outbox.add(.bluetoothAddressUnresolved(address: address, error: "\(error)"))
                }
            }
        }
        return BluetoothIdentity(address: address, type: type, resolvedTo: resolved)
    }

    /// When `identity`'s device is judged again: it is admitted (a candidate heard for ``BluetoothSettings/admitAfter``),
    /// turns offline (while it is online) or goes (one not kept: when it turns offline). While BlueZ holds a temporary
    /// object of it only its admission (the object's removal derives it again).
    private func bluetoothDeadline(of identity: BluetoothIdentity, isKept: Bool, now: Duration) -> Duration? {
        var dues: [Duration] = []
        if !isKept, case .address = identity, let since = bluetooth.heardSince[identity] {
            dues.append(since + bluetooth.settings.admitAfter)
        }
        if !bluetooth.isPresent(identity), let last = bluetooth.lastHeard(of: identity, now: now) {
            let isOnline = idByOrigin[.bluetooth(identity)].flatMap { published[$0]?.device?.online } ?? true
            dues.append(!isKept || isOnline ? last + bluetooth.settings.away : last + bluetoothForgetAfter(identity))
        }
        return dues.filter { $0 > now }.min()
    }

    /// Derives the device of a Bluetooth identity.
    mutating func derive(bluetooth identity: BluetoothIdentity, now: Duration) {
        let origin = Origin.bluetooth(identity)
        var isKept = false
        defer {
            bluetooth.deadlines[identity] = bluetoothDeadline(of: identity, isKept: isKept, now: now)
        }
        bluetooth.pruneRotated(identity, now: now)
        guard let latest = bluetooth.latest(of: identity), let last = bluetooth.lastHeard(of: identity, now: now) else {
            publish(nil, origin: origin, answering: false, lastAnswer: now, forgets: true)
            return
        }
        isKept = isAdmitted(identity, now: now)
        let heard = now < last + bluetooth.settings.away
        // Merged with a LAN device (its key or its IRK is that device's): the LAN device carries the facts.
        let bound: DeviceID? =
            switch identity {
            case .address(let address): identities.id(for: .bluetooth(address))
            case .resolved(let id): id
            case .ephemeral: nil
            }
        if let bound, let holder = origins[bound], holder != origin, !holder.isBluetooth {
            publish(nil, origin: origin, answering: false, lastAnswer: last, mergedInto: holder)
            markForDerivation(holder)
            return
        }
        let current = idByOrigin[origin]
        let origins = self.origins
        let id: DeviceID
        switch identity {
        case .address(let address) where isKept:
            id = identities.identify(
                key: .bluetooth(address),
                preferred: DeviceID.make(bluetoothAddress: address),
                current: current,
                isAvailable: { origins[$0] == nil || origins[$0] == origin }
            )
        case .address(let address), .ephemeral(let address): id = current ?? DeviceID.make(bluetoothAddress: address)
        case .resolved(let target): id = target
        }
        if !heard && (!isKept || now >= last + bluetoothForgetAfter(identity)) {
            bluetooth.remove(identity)
            publish(nil, origin: origin, answering: false, lastAnswer: last, forgets: true)
            return
        }
        let facts = bluetooth.facts(of: latest, isKept: isKept)
        let device = Device(
            id: id,
            hostName: nil,
            displayName: facts.name,
            addresses: [],
            interfaces: [],
            services: [],
            vendor: facts.addressType == .public ? vendorOf(facts.address) : nil,
            online: heard,
            bluetooth: facts
        )
        publish(
            device,
            origin: origin,
            answering: heard,
            lastAnswer: last,
            reason: PresenceReason(heard ? .answered : .unanswered, [PresenceReason.bluetoothMeans])
        )
    }
}
