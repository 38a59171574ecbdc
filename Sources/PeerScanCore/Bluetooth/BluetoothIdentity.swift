// Who a Bluetooth LE advertiser is: its identity address, the device an IRK binds its private address to, or an
// ephemeral address of its own; and the pure parts that decide it (IRK resolution, bars).

import Foundation
import PeerScanModel
internal import SystemCrypto

/// What a Bluetooth advertiser is known as, the origin of its device in the device table.
public enum BluetoothIdentity: Hashable, Sendable {
    /// A public or random static address: the device is this address's (its key `bluetooth:<address>`).
    case address(String)
    /// A resolvable private address an IRK resolved: the device the IRK is bound to.
    case resolved(DeviceID)
    /// A private address no IRK resolves: a device of its own while it advertises, never kept.
    case ephemeral(String)

    /// The identity of an advertiser, given what resolves its address.
    ///
    /// - Parameters:
    ///   - address: The advertised address, lowercase.
    ///   - type: Its kind.
    ///   - resolvedTo: The device an IRK binds a resolvable private address to, if any.
    public init(address: String, type: BluetoothAddressType, resolvedTo: DeviceID?) {
        if type.isIdentity {
            self = .address(address)
        } else if type == .resolvablePrivate, let resolvedTo {
            self = .resolved(resolvedTo)
        } else {
            self = .ephemeral(address)
        }
    }
}

extension DeviceID {
    /// The identifier of a device known by its Bluetooth address: a name-based UUID (version 5) of
    /// `bluetooth:<address>` (lowercase) in ``namespace``. No host name can give it (`:` is not in a host name).
    ///
    /// - Complexity: O(1) (one SHA-1).
    public static func make(bluetoothAddress address: String) -> DeviceID {
        DeviceID(makeNameBased(namespace: namespace, name: "bluetooth:" + address.lowercased()))
    }
}

/// Resolves resolvable private addresses with the known Identity Resolving Keys (Core spec, Vol 3, Part H, 2.2.2):
/// an address `prand || hash` is a key's when `ah(irk, prand) == hash`.
///
/// Each address is checked against every key once: the result (a device, or none) is cached per address until the
/// keys change or the address is forgotten (``forget(_:)``: the device table forgets an address with its advertiser,
/// so the cache holds no more than the addresses it holds). With no key nothing is cached. The struct does no I/O.
///
/// ## Performance
/// A new address costs one AES block per key; an address seen before costs a dictionary lookup.
public struct IRKResolver: Sendable {
    /// The keys, by the device they are bound to.
    public private(set) var keys: [DeviceID: IdentityResolvingKey]
    private var cache: [String: DeviceID?] = [:]
    /// The number of `ah` computations so far (for tests: each address is checked once per key).
    public private(set) var hashCount = 0

    /// Creates a resolver with the keys known from before (the registry's, the key file's).
    public init(keys: [DeviceID: IdentityResolvingKey] = [:]) { self.keys = keys }

    /// Binds `key` to `id` (replacing its key), or removes `id`'s key (`nil`). Clears the cache.
    public mutating func setKey(_ key: IdentityResolvingKey?, for id: DeviceID) {
        keys[id] = key
        cache = [:]
    }

    /// Moves `id`'s key to `survivor` (a merge), unless the survivor has one.
    public mutating func merge(_ id: DeviceID, into survivor: DeviceID) {
        guard let key = keys.removeValue(forKey: id) else { return }
        if keys[survivor] == nil { keys[survivor] = key }
        cache = [:]
    }

    /// The number of addresses whose result is cached.
    var cachedCount: Int { cache.count }

    /// Forgets what was found for `address` (its advertiser is no longer held).
    mutating func forget(_ address: String) { cache[address] = nil }

    /// Forgets what was found for every address.
    mutating func forgetAddresses() { cache = [:] }

    /// The device whose key resolves `address`, or `nil`.
    ///
    /// - Parameter address: A resolvable private address, `aa:bb:cc:dd:ee:ff` (the first octet most significant).
    /// - Throws: ``LibcryptoError`` if AES-128 failed (the result is not cached then).
    /// - Complexity: O(k) for k keys the first time an address is asked about, O(1) after.
    mutating func resolve(_ address: String) throws(LibcryptoError) -> DeviceID? {
        guard !keys.isEmpty else { return nil }
        if let cached = cache[address] { return cached }
        let octets = address.split(separator: ":").compactMap { UInt8($0, radix: 16) }
        guard octets.count == 6 else { return nil }
        let prand = UInt32(octets[0]) << 16 | UInt32(octets[1]) << 8 | UInt32(octets[2])
        let hash = UInt32(octets[3]) << 16 | UInt32(octets[4]) << 8 | UInt32(octets[5])
        var match: DeviceID?
        for (id, key) in keys.sorted(by: { $0.key < $1.key }) {
            hashCount += 1
            if try BluetoothAddressHash.ah(irk: key.bytes, prand: prand) == hash {
                match = id
                break
            }
        }
        cache[address] = match
        return match
    }

    /// A resolvable private address that `key` resolves, made from `prand` (its top two bits are set to 01).
    /// For tests and the radio guest's checks.
    static func makeAddress(key: IdentityResolvingKey, prand: UInt32) throws(LibcryptoError) -> String {
        let random = (prand & 0x3F_FFFF) | 0x40_0000
        let hash = try BluetoothAddressHash.ah(irk: key.bytes, prand: random)
        let octets = [random >> 16, random >> 8, random, hash >> 16, hash >> 8, hash].map { UInt8($0 & 0xFF) }
        return octets.map { String(format: "%02x", $0) }.joined(separator: ":")
    }
}

/// A Bluetooth device's signal as bars, with hysteresis.
public enum BluetoothSignal {
    /// The RSSI thresholds of 1, 2, 3 and 4 bars, in dBm.
    public static let barThresholds = [-90, -80, -70, -60]
    /// How far past a threshold a signal must go to change the bars.
    public static let barHysteresis = 3

    /// The bars of `rssi` given the bars shown before: the plain count of thresholds reached at first; after that a
    /// bar is gained only ``barHysteresis`` dB above its threshold and lost only that far below.
    ///
    /// - Parameters:
    ///   - rssi: The received signal in dBm; `nil` (not reported) keeps the bars shown before (0 at first).
    ///   - previous: The bars shown before, or `nil`.
    /// - Returns: 0 to 4.
    public static func bars(rssi: Int?, previous: Int?) -> Int {
        guard let rssi else { return previous ?? 0 }
        return SignalBars.bars(signal: rssi, previous: previous, thresholds: barThresholds, hysteresis: barHysteresis)
    }
}
