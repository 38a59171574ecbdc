import PeerScanCore

/// The most Wi-Fi rows the registry keeps besides the evil-twin baseline: the networks (`wifi_network`) and access
/// points (`wifi_access_point`) heard most recently stay, the rest go at the minute's forgetting, oldest heard first.
///
/// `--forget-after` alone does not bound the tables: only the networks listed are recorded, and the list is capped
/// (`--wifi-networks-max`), but under a beacon flood the cap churns — flood networks go absent and newcomers take their
/// place — so every minute brings new rows, kept for `--forget-after` (7 days). The limit follows the cap:
/// ``networksPerListed`` times it for the networks (a host that moves between a few places in a week hears a few of
/// the cap's worth; 4,096 at the default cap of 256), and ``accessPointsPerNetwork`` times that for the access points
/// (most networks have one to three; a network with rotating BSSIDs takes its share only). The baseline's rows (the
/// networks connected to or trusted, the access points vouched for) are never trimmed and do not count.
public struct NetworkRowLimit: Sendable, Equatable {
    /// How many networks are kept per network the list holds.
    public static let networksPerListed = 16
    /// How many access points are kept per network kept.
    public static let accessPointsPerNetwork = 4

    /// The most networks kept outside the baseline.
    public var networks: Int
    /// The most access points kept outside the baseline.
    public var accessPoints: Int

    /// Creates a limit.
    ///
    /// - Precondition: Both are at least 1.
    public init(networks: Int, accessPoints: Int) {
        precondition(networks >= 1 && accessPoints >= 1, "the registry's Wi-Fi row limit must be at least 1")
        self.networks = networks
        self.accessPoints = accessPoints
    }

    /// The limit for a list of at most `maximum` networks (`--wifi-networks-max`): ``networksPerListed`` × `maximum`
    /// networks, ``accessPointsPerNetwork`` times that access points.
    ///
    /// - Precondition: `maximum` is at least 1.
    public init(listing maximum: Int = NetworkCapacity.defaultMaximum) {
        let networks = maximum * Self.networksPerListed
        self.init(networks: networks, accessPoints: networks * Self.accessPointsPerNetwork)
    }
}
