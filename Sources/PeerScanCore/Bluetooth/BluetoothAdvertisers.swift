// The device table's Bluetooth state: the advertisers heard, who each is (``BluetoothIdentity``), since when each is
// heard, when each is next judged, and the settings (away time, admission, the cap, company names, IRKs). A value the
// table owns; the derivation is in DeviceTable+Bluetooth.swift, admission and the cap in DeviceTable+Admission.swift.

import Discovery
import PeerScanModel

/// How the device table treats Bluetooth LE advertisers (peerscand's `--bluetooth-away`, `--bluetooth-admit-after`,
/// `--bluetooth-forget-after`, `--bluetooth-max-devices`, the company names, the IRKs from the registry and the key
/// file).
public struct BluetoothSettings: Sendable {
    /// The default of ``admitAfter``: past the 15-minute rotation of Find My's offline-finding addresses, and far
    /// past the time a walker stays in a Bluetooth LE radio's range (docs/scanning.md, "Admission").
    public static let defaultAdmitAfter = Duration.seconds(20 * 60)
    /// The default of ``forgetAfter``.
    public static let defaultForgetAfter = Duration.seconds(24 * 3600)
    /// The default of ``maxDevices``.
    public static let defaultMaxDevices = 1000

    /// How long after its last advertisement a Bluetooth device turns offline.
    public var away: Duration
    /// How long an identity address (public, random static) must be heard without a gap of ``away`` before it is a
    /// device that is kept (registry, MQTT, `new device`); until then it is listed while heard, like an ephemeral one.
    /// Zero: at once.
    public var admitAfter: Duration
    /// How long after its last advertisement a kept device nobody touched (no name, note, IRK or merge; neither
    /// paired nor bonded) is forgotten, if earlier than the table's `forgetAfter`.
    public var forgetAfter: Duration
    /// The most Bluetooth devices listed at once: past it those not kept go first, then kept ones nobody touched
    /// (``DeviceTable/makeRoom(for:now:)``).
    public var maxDevices: Int
    /// The company of a Bluetooth SIG company identifier, or `nil`.
    public var manufacturerOf: @Sendable (UInt16) -> String?
    /// The Identity Resolving Keys known at start, by the device each is bound to.
    public var keys: [DeviceID: IdentityResolvingKey]

    /// Creates settings.
    public init(
        away: Duration = .seconds(120),
        admitAfter: Duration = defaultAdmitAfter,
        forgetAfter: Duration = defaultForgetAfter,
        maxDevices: Int = defaultMaxDevices,
        manufacturerOf: @escaping @Sendable (UInt16) -> String? = { _ in nil },
        keys: [DeviceID: IdentityResolvingKey] = [:]
    ) {
        self.away = away
        self.admitAfter = admitAfter
        self.forgetAfter = forgetAfter
        self.maxDevices = max(maxDevices, 1)
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
    /// What a LAN device's advertisers say: the facts of the one heard last, and when it was heard.
    typealias Heard = (facts: BluetoothFacts, lastSeen: Duration)

    let settings: BluetoothSettings
    /// The IRKs and what they resolved.
    private(set) var resolver: IRKResolver
    private(set) var byAddress: [String: BluetoothAdvertiser] = [:]
    private(set) var addressesByIdentity: [BluetoothIdentity: Set<String>] = [:]
    /// The identities the next take derives again.
    private var dirty: Set<BluetoothIdentity> = []
    /// When each identity's device is next judged again (turns offline, is admitted, or goes), as its last derivation
    /// left it.
    private var deadlines = DeadlineQueue<BluetoothIdentity>()
    /// When each identity's current run of being heard began (a silence of ``BluetoothSettings/away`` ends a run):
    /// admission counts from it.
    private(set) var heardSince: [BluetoothIdentity: Duration] = [:]
    /// Whether the table held ``BluetoothSettings/maxDevices`` identities when one more came (until it holds fewer).
    private(set) var isFull = false
    /// Key changes not yet taken for the registry (`nil`: removed).
    private var keyChanges: [DeviceID: IdentityResolvingKey?] = [:]
    /// Whether a failure of libcrypto to resolve an address was noted (logged once per run).
    private var resolveFailureNoted = false

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
        insert(advertiser, now: now)
    }

    /// Records an advertiser (new, or with a new advertisement or identity) and marks its identities for derivation.
    /// A run of being heard starts unless its identity was heard less than ``BluetoothSettings/away`` before.
    /// - Parameter now: The time (`nil`: the advertisement's, for an advertiser that only changes identity).
    mutating func insert(_ advertiser: BluetoothAdvertiser, now: Duration? = nil) {
        let now = now ?? advertiser.advertisement.lastSeen
        let heard = advertiser.lastHeard(now: now)
        let last = lastHeard(of: advertiser.identity, now: now)
        if heardSince[advertiser.identity] == nil || last.map({ heard >= $0 + settings.away }) ?? true {
            heardSince[advertiser.identity] = heard
        }
        let address = advertiser.advertisement.address
        if let old = byAddress[address], old.identity != advertiser.identity {
            addressesByIdentity[old.identity]?.remove(address)
            if addressesByIdentity[old.identity]?.isEmpty == true {
                addressesByIdentity[old.identity] = nil
                heardSince[old.identity] = nil
            }
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
            drop(address)
            addressesByIdentity[identity]?.remove(address)
        }
    }

    /// Forgets an address (and what the resolver remembers of it).
    private mutating func drop(_ address: String) {
        byAddress[address] = nil
        resolver.forget(address)
    }

    /// Forgets every address of `identity`.
    mutating func remove(_ identity: BluetoothIdentity) {
        deadlines[identity] = nil
        heardSince[identity] = nil
        dirty.remove(identity)
        for address in addressesByIdentity.removeValue(forKey: identity) ?? [] { drop(address) }
        if addressesByIdentity.count < settings.maxDevices { isFull = false }
    }

    /// Forgets every advertiser (scanning switched off); keeps the keys.
    mutating func removeAll() {
        byAddress = [:]
        addressesByIdentity = [:]
        dirty = []
        deadlines.removeAll()
        heardSince = [:]
        isFull = false
        resolver.forgetAddresses()
    }

    /// What the advertisers of `identities` (a LAN device's `bluetooth:` keys and its IRK) say: the facts of the one
    /// heard last, and when; `nil` if none is heard.
    /// - Complexity: O(a) for the a addresses of the identities.
    func heard(_ identities: [BluetoothIdentity], now: Duration) -> Heard? {
        let advertiser = identities.compactMap { latest(of: $0) }.max {
            $0.lastHeard(now: now) < $1.lastHeard(now: now)
        }
        return advertiser.map { (facts(of: $0, isKept: true), $0.lastHeard(now: now)) }
    }

    /// Whether a LAN device's Bluetooth advertisements count as it answering now.
    func isHeard(_ heard: Heard?, now: Duration) -> Bool {
        heard.map { now < $0.lastSeen + settings.away } ?? false
    }

    /// `["ble"]` when a LAN device's Bluetooth advertisements count as an answer now, else none.
    func means(_ heard: Heard?, now: Duration) -> [String] {
        isHeard(heard, now: now) ? [PresenceReason.bluetoothMeans] : []
    }

    /// Marks for derivation the identities whose deadline passed (each derivation sets the next one).
    /// - Complexity: O(log b) for each identity due, b identities.
    mutating func markDue(now: Duration) {
        for identity in deadlines.popDue(now: now) { dirty.insert(identity) }
    }

    // MARK: Derivation and deadlines

    /// Derives `identity` again at the next take.
    mutating func mark(_ identity: BluetoothIdentity) { dirty.insert(identity) }

    /// Whether an identity awaits derivation.
    var hasMarked: Bool { !dirty.isEmpty }

    /// The next identity that awaits derivation, taken off the list.
    mutating func popMarked() -> BluetoothIdentity? { dirty.popFirst() }

    /// Sets when `identity`'s device is judged again (`nil`: not on its own).
    mutating func setDeadline(_ due: Duration?, for identity: BluetoothIdentity) { deadlines[identity] = due }

    /// The earliest deadline, if any.
    /// - Complexity: O(log b) for b identities (amortized).
    mutating func nextDeadline() -> Duration? { deadlines.next() }

    /// The list was full when another identity came: the cap's limit line and the host item's `limits` say so.
    mutating func noteFull() { isFull = true }

    // MARK: Keys

    /// The IRK bound to `id`, if any.
    func key(of id: DeviceID) -> IdentityResolvingKey? { resolver.keys[id] }

    /// Binds `key` to `id` (`nil`: removes its key); the registry learns it at the next take of key changes.
    mutating func setKey(_ key: IdentityResolvingKey?, for id: DeviceID) {
        resolver.setKey(key, for: id)
        keyChanges[id] = .some(key)
    }

    /// Moves `id`'s key to `survivor` unless the survivor has one.
    /// - Returns: Whether `id` had a key.
    mutating func mergeKey(_ id: DeviceID, into survivor: DeviceID) -> Bool {
        guard let key = resolver.keys[id] else { return false }
        resolver.merge(id, into: survivor)
        keyChanges[id] = .some(nil)
        if resolver.keys[survivor] == key { keyChanges[survivor] = .some(key) }
        return true
    }

    /// The key changes since the last take (`nil`: removed).
    mutating func takeKeyChanges() -> [DeviceID: IdentityResolvingKey?] {
        defer { keyChanges = [:] }
        return keyChanges
    }

    /// The device whose IRK resolves `address`, if any (cached).
    /// - Throws: What libcrypto's AES-128 threw.
    mutating func resolve(_ address: String) throws -> DeviceID? { try resolver.resolve(address) }

    /// Forgets what the resolver remembers of `address` (an advertiser not held).
    mutating func forgetResolution(of address: String) { resolver.forget(address) }

    /// Notes a failure to resolve an address.
    /// - Returns: Whether it is the first of this run (the one logged).
    mutating func noteResolveFailure() -> Bool {
        defer { resolveFailureNoted = true }
        return !resolveFailureNoted
    }

    /// The facts of an advertiser, for ``Device/bluetooth``; `isKept` false: ephemeral (listed while heard, never
    /// kept).
    func facts(of advertiser: BluetoothAdvertiser, isKept: Bool) -> BluetoothFacts {
        let advertisement = advertiser.advertisement
        return BluetoothFacts(
            address: advertisement.address,
            addressType: advertisement.addressType,
            name: advertisement.name,
            appearance: advertisement.appearance.map(Int.init),
            manufacturer: advertisement.manufacturerData.first.flatMap { settings.manufacturerOf($0.companyID) },
            services: advertisement.serviceUUIDs,
            bars: advertiser.bars,
            isEphemeral: !isKept
        )
    }
}
