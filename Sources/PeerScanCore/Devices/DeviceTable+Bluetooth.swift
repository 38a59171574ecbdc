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
                bluetooth.forgetResolution(of: advertisement.address)  // not held: every device listed is a person's
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
        bluetooth.setKey(key, for: id)
        for (address, advertiser) in bluetooth.byAddress
        where advertiser.advertisement.addressType == .resolvablePrivate {
            let identity = identity(of: address, type: .resolvablePrivate)
            guard identity != advertiser.identity else { continue }
            // The item of the old identity stays the device's when the id is the same (no `forgotten`, no `new`).
            let oldOrigin = Origin.bluetooth(advertiser.identity)
            if let held = published.id(of: oldOrigin), case .resolved(let target) = identity, held == target {
                published.move(oldOrigin, to: .bluetooth(identity))
            }
            var moved = advertiser
            moved.identity = identity
            bluetooth.insert(moved)
        }
    }

    /// Moves `id`'s IRK to `survivor` (a person's merge), unless the survivor has one.
    mutating func mergeIRK(_ id: DeviceID, into survivor: DeviceID) {
        guard bluetooth.mergeKey(id, into: survivor) else { return }
        for (address, advertiser) in bluetooth.byAddress where advertiser.identity == .resolved(id) {
            var moved = advertiser
            moved.identity = identity(of: address, type: .resolvablePrivate)
            bluetooth.insert(moved)
        }
    }

    /// The key changes since the last take, for the registry (`nil`: removed).
    public mutating func takeIRKChanges() -> [DeviceID: IdentityResolvingKey?] {
        bluetooth.takeKeyChanges()
    }

    /// The identity of an advertiser's address now.
    private mutating func identity(of address: String, type: BluetoothAddressType) -> BluetoothIdentity {
        var resolved: DeviceID?
        if type == .resolvablePrivate {
            do {
                resolved = try bluetooth.resolve(address)
            } catch {
                // AES-128 from the system's libcrypto failed (out of memory, no provider): the address stays its own,
                // ephemeral device, and the failure is logged once.
                if bluetooth.noteResolveFailure() {
                    outbox.add(.bluetoothAddressUnresolved(address: address, error: "\(error)"))
                }
            }
        }
        return BluetoothIdentity(address: address, type: type, resolvedTo: resolved)
    }
}
