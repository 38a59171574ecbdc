import Foundation
import PeerScanModel
internal import SystemCrypto

extension DeviceID {
    /// peerscan's namespace: the version 5 UUID of the DNS name `peerscan.io` in RFC 9562's DNS namespace
    /// (`6ba7b810-9dad-11d1-80b4-00c04fd430c8`).
    public static let namespace = makeNameBased(
        namespace: UUID(uuidString: "6ba7b810-9dad-11d1-80b4-00c04fd430c8")!,
        name: "peerscan.io"
    )

    /// The identifier of the device with this host name: a name-based UUID (RFC 9562 version 5, SHA-1) of its
    /// canonical host name in ``namespace``. Every peerscand, on every machine and after every restart, gives the
    /// same device the same identifier.
    ///
    /// - Parameter hostName: A host name in any case, with or without a trailing dot.
    /// - Complexity: O(n) in the length of `hostName` (one SHA-1).
    public static func make(hostName: String) -> DeviceID {
        DeviceID(makeNameBased(namespace: namespace, name: canonicalHostName(hostName)))
    }

    /// The namespace of the identifiers derived from MAC addresses: the version 5 UUID of `mac-address` in
    /// ``namespace`` (so that no host name can give a MAC address's identifier).
    public static let macAddressNamespace = makeNameBased(namespace: namespace, name: "mac-address")

    /// The identifier of a device known only by its MAC address (no mDNS host name): a name-based UUID of the
    /// lowercase `aa:bb:cc:dd:ee:ff` form in ``macAddressNamespace``. Like a host name's, it is the same on every
    /// peerscand and after every restart.
    ///
    /// - Complexity: O(1) (one SHA-1 of 17 bytes).
    public static func make(macAddress: String) -> DeviceID {
        DeviceID(makeNameBased(namespace: macAddressNamespace, name: macAddress.lowercased()))
    }

    /// The canonical form of a host name: lowercase, without a trailing dot.
    ///
    /// A name that is canonical already (ASCII, no capital, no trailing dot: what AvahiBrowser hands on) is returned as
    /// it is, sharing its storage: `lowercased()` would copy it, and the tables keep the result (10,000 hosts: 0.6 MB a
    /// copy).
    public static func canonicalHostName(_ hostName: String) -> String {
        let isCanonical =
            hostName.utf8.last != UInt8(ascii: ".")
            && !hostName.utf8.contains { $0 >= 0x80 || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) }
        if isCanonical { return hostName }
        var name = hostName.lowercased()
        while name.hasSuffix(".") { name.removeLast() }
        return name
    }

    /// A version 5 (SHA-1, name-based) UUID, as RFC 9562 section 5.5 defines it.
    ///
    /// The SHA-1 comes from the system's libcrypto, which fails only when it is broken (out of memory, or an OpenSSL
    /// configuration that loads no provider of SHA-1). No other identifier would be right, so that traps, with
    /// OpenSSL's reasons.
    ///
    /// - Complexity: O(n) in the length of `name`.
    public static func makeNameBased(namespace: UUID, name: String) -> UUID {
        do {
            return try NameBasedUUID.make(namespace: namespace, name: name.utf8)
        } catch {
            fatalError("a device id needs SHA-1 from the system's libcrypto: \(error)")
        }
    }
}
