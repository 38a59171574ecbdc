// The device table's Bluetooth state: the advertisers heard, who each is (``BluetoothIdentity``), and the settings
// (away time, company names, IRKs). A value the table owns; the derivation is in DeviceTable+Bluetooth.swift.

import Discovery
import PeerScanModel

/// How the device table treats Bluetooth LE advertisers (peerscand's `--bluetooth-away`, the company names, the IRKs
/// from the registry and the key file).
public struct BluetoothSettings: Sendable {
    /// How long after its last advertisement a Bluetooth device turns offline.
    public var away: Duration
    /// The company of a Bluetooth SIG company identifier, or `nil`.
    public var manufacturerOf: @Sendable (UInt16) -> String?
    /// The Identity Resolving Keys known at start, by the device each is bound to.
    public var keys: [DeviceID: IdentityResolvingKey]

    /// Creates settings.
    public init(
        away: Duration = .seconds(120),
        manufacturerOf: @escaping @Sendable (UInt16) -> String? = { _ in nil },
        keys: [DeviceID: IdentityResolvingKey] = [:]
    ) {
        self.away = away
        self.manufacturerOf = manufacturerOf
        self.keys = keys
    }
}

/// One advertiser: its latest advertisement, who it is, its bars, and whether BlueZ holds its temporary object.
struct BluetoothAdvertiser: Sendable {
    var advertisement: BluetoothAdvertisement
    var identity: BluetoothIdentity
    var bars: Int
    /// BlueZ holds a temporary object for it (``BluetoothAdvertisement/isTemporary``): it is being heard, whether or
    /// not its properties change. Ends with the object's removal.
    var isPresent: Bool = false

    /// When it was last heard: now while BlueZ holds its temporary object, else its last advertisement (or removal).
    func lastHeard(now: Duration) -> Duration { isPresent ? now : advertisement.lastSeen }
}

/// The advertisers heard, by address and by identity.
struct BluetoothAdvertisers: Sendable {
    let settings: BluetoothSettings
    var resolver: IRKResolver
    var byAddress: [String: BluetoothAdvertiser] = [:]
    var addressesByIdentity: [BluetoothIdentity: Set<String>] = [:]
    var dirty: Set<BluetoothIdentity> = []
    /// When each identity's device is next judged again (turns offline, or goes), as its last derivation left it.
    var deadlines: [BluetoothIdentity: Duration] = [:]
    /// Key changes not yet taken for the registry (`nil`: removed).
    var keyChanges: [DeviceID: IdentityResolvingKey?] = [:]
    /// Whether a failure of libcrypto to resolve an address was logged (once per run).
    var resolveFailureLogged = false

    init(settings: BluetoothSettings) {
        self.settings = settings
        self.resolver = IRKResolver(keys: settings.keys)
    }

    /// The advertiser of `identity` heard last, if any.
    func latest(of identity: BluetoothIdentity) -> BluetoothAdvertiser? {
        (addressesByIdentity[identity] ?? []).compactMap { byAddress[$0] }.max {
            ($0.advertisement.lastSeen, $0.advertisement.address) < (
                $1.advertisement.lastSeen, $1.advertisement.address
            )
        }
    }

    /// When `identity` was last heard (now while BlueZ holds a temporary object of one of its addresses), if ever.
    func lastHeard(of identity: BluetoothIdentity, now: Duration) -> Duration? {
        (addressesByIdentity[identity] ?? []).compactMap { byAddress[$0]?.lastHeard(now: now) }.max()
    }

    /// Whether BlueZ holds a temporary object of one of `identity`'s addresses.
    func isPresent(_ identity: BluetoothIdentity) -> Bool {
        (addressesByIdentity[identity] ?? []).contains { byAddress[$0]?.isPresent == true }
    }

    /// BlueZ removed the object of `address` on `adapter` (`nil`: every adapter went): a temporary advertiser was not
    /// heard for `TemporaryTimeout`; its away time counts from `now`.
    mutating func objectRemoved(address: String, adapter: String?, now: Duration) {
        guard var advertiser = byAddress[address], advertiser.isPresent,
            adapter == nil || advertiser.advertisement.adapter == adapter
        else { return }
        advertiser.isPresent = false
        advertiser.advertisement.lastSeen = now
        insert(advertiser)
    }

    /// Records an advertiser (new, or with a new advertisement or identity) and marks its identities for derivation.
    mutating func insert(_ advertiser: BluetoothAdvertiser) {
        let address = advertiser.advertisement.address
        if let old = byAddress[address], old.identity != advertiser.identity {
            addressesByIdentity[old.identity]?.remove(address)
            if addressesByIdentity[old.identity]?.isEmpty == true { addressesByIdentity[old.identity] = nil }
            dirty.insert(old.identity)
        }
        byAddress[address] = advertiser
        addressesByIdentity[advertiser.identity, default: []].insert(address)
        dirty.insert(advertiser.identity)
    }

    /// Drops the addresses of `identity` not heard for `away` but its latest (a rotated private address).
    mutating func pruneRotated(_ identity: BluetoothIdentity, now: Duration) {
        guard let latest = latest(of: identity) else { return }
        for address in addressesByIdentity[identity] ?? [] where address != latest.advertisement.address {
            guard let advertiser = byAddress[address], !advertiser.isPresent,
                now >= advertiser.advertisement.lastSeen + settings.away
            else { continue }
            byAddress[address] = nil
            addressesByIdentity[identity]?.remove(address)
        }
    }

    /// Forgets every address of `identity`.
    mutating func remove(_ identity: BluetoothIdentity) {
        deadlines[identity] = nil
        for address in addressesByIdentity.removeValue(forKey: identity) ?? [] { byAddress[address] = nil }
    }

    /// Forgets every advertiser (scanning switched off); keeps the keys.
    mutating func removeAll() {
        byAddress = [:]
        addressesByIdentity = [:]
        dirty = []
        deadlines = [:]
    }

    /// The facts of an advertiser, for ``Device/bluetooth``.
    func facts(of advertiser: BluetoothAdvertiser) -> BluetoothFacts {
        let advertisement = advertiser.advertisement
        return BluetoothFacts(
            address: advertisement.address,
            addressType: advertisement.addressType,
            name: advertisement.name,
            appearance: advertisement.appearance.map(Int.init),
            manufacturer: advertisement.manufacturerData.first.flatMap { settings.manufacturerOf($0.companyID) },
            services: advertisement.serviceUUIDs,
            bars: advertiser.bars,
            isEphemeral: { if case .ephemeral = advertiser.identity { true } else { false } }()
        )
    }
}
