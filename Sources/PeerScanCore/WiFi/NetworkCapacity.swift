import PeerScanModel

/// The hard cap on the Wi-Fi networks listed (`--wifi-networks-max`): which network goes when one more is heard
/// while the list is full. A pure decision over summaries the wireless table hands it.
///
/// The networks this host is connected to and the known ones (``KnownNetworks``) are always listed and never
/// evicted. A listed network stays while it is heard: newcomers, the strongest first, take only the room that absent
/// networks leave (not heard for ``absentAfter``: the kernel keeps an access point that long in its scan results, so
/// a network still in the air is in the next one), the one absent longest first. So a beacon flood, however strong
/// its beacons, cannot push a network in the air out of the list, and networks at the cap's edge do not take turns
/// in it at every scan.
///
/// ## Performance
/// ``admit(_:held:now:)`` is O(n log n + c log c) for n networks held and c newcomers, and is only called when the
/// list is full and a scan brought newcomers; n is at most the cap (plus the protected networks).
public struct NetworkCapacity: Sendable, Equatable {
    /// The default cap: a busy city street (see docs/scanning.md).
    public static let defaultMaximum = 256
    /// How long a network may go unheard before it counts as absent.
    public static let absentAfter: Duration = .seconds(30)

    /// A network as the decision sees it.
    public struct Candidate: Sendable, Equatable {
        public var id: DeviceID
        /// When one of its access points was last heard.
        public var lastSeen: Duration
        /// Its strongest access point's signal in dBm, if the driver said.
        public var signal: Int?

        public init(id: DeviceID, lastSeen: Duration, signal: Int?) {
            self.id = id
            self.lastSeen = lastSeen
            self.signal = signal
        }
    }

    /// The most networks listed, protected ones included (these are listed even past it).
    public var maximum: Int

    /// Creates a cap.
    ///
    /// - Precondition: `maximum` is at least 1.
    public init(maximum: Int = defaultMaximum) {
        precondition(maximum >= 1, "the Wi-Fi network cap must be at least 1")
        self.maximum = maximum
    }

    /// Which newcomers are listed and which listed networks go for them.
    ///
    /// - Parameters:
    ///   - newcomers: The networks heard that are not listed.
    ///   - held: The listed networks that may be evicted (neither connected nor known).
    ///   - room: How many networks can be added without evicting one.
    ///   - now: The table's time.
    /// - Returns: The newcomers admitted and the networks evicted for them.
    /// - Complexity: O(n log n + c log c) for n `held` and c `newcomers`.
    public func admit(
        _ newcomers: [Candidate],
        held: [Candidate],
        room: Int,
        now: Duration
    ) -> (admitted: [DeviceID], evicted: [DeviceID]) {
        let strongestFirst = newcomers.sorted { Self.rank($0) > Self.rank($1) }
        var admitted = Array(strongestFirst.prefix(max(room, 0)).map(\.id))
        var evicted: [DeviceID] = []
        let absentLongestFirst = held.filter { now - $0.lastSeen >= Self.absentAfter }
            .sorted { ($0.lastSeen, $0.id) < ($1.lastSeen, $1.id) }
        for (newcomer, absent) in zip(strongestFirst.dropFirst(max(room, 0)), absentLongestFirst) {
            evicted.append(absent.id)
            admitted.append(newcomer.id)
        }
        return (admitted, evicted)
    }

    /// The stronger signal first, then the more recent sighting, then the identifier. (Newcomers are all just heard:
    /// presence decides nothing among them.)
    private static func rank(_ candidate: Candidate) -> (Int, Duration, DeviceID) {
        (candidate.signal ?? Int.min / 2, candidate.lastSeen, candidate.id)
    }
}
