import PeerScanModel

/// The hard cap on the Wi-Fi networks listed (`--wifi-networks-max`): which network goes when one more is heard
/// while the list is full. A pure decision over summaries the wireless table hands it.
///
/// The networks this host is connected to and the known ones (``KnownNetworks``) are always listed and never
/// evicted. Among the others, the one absent longest goes first (not heard for ``absentAfter``: the kernel keeps an
/// access point that long in its scan results, so a network still in the air is in the next one), then the weakest;
/// a newcomer displaces a listed network heard as recently only if it is ``hysteresis`` dB stronger, so that networks
/// of about the same signal at the cap's edge do not take turns in the list at every scan.
///
/// ## Performance
/// ``admit(_:held:now:)`` is O(n log n + c log c) for n networks held and c newcomers, and is only called when the
/// list is full and a scan brought newcomers; n is at most the cap (plus the protected networks).
public struct NetworkCapacity: Sendable, Equatable {
    /// The default cap: a busy city street (see docs/scanning.md).
    public static let defaultMaximum = 256
    /// How long a network may go unheard before it counts as absent.
    public static let absentAfter: Duration = .seconds(30)
    /// By how many dB a newcomer must beat a listed network heard as recently to displace it.
    public static let hysteresis = 3

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
        let strongestFirst = newcomers.sorted { Self.rank($0, now: now) > Self.rank($1, now: now) }
        var admitted = Array(strongestFirst.prefix(max(room, 0)).map(\.id))
        var evicted: [DeviceID] = []
        let worstFirst = held.sorted { Self.rank($0, now: now) < Self.rank($1, now: now) }
        var next = 0
        for newcomer in strongestFirst.dropFirst(max(room, 0)) {
            guard next < worstFirst.count else { break }
            let worst = worstFirst[next]
            let isAbsent = now - worst.lastSeen >= Self.absentAfter
            let beats = (newcomer.signal ?? Int.min) >= (worst.signal ?? Int.min / 2) + Self.hysteresis
            guard isAbsent || beats else { break }  // the newcomers after it are weaker still
            evicted.append(worst.id)
            admitted.append(newcomer.id)
            next += 1
        }
        return (admitted, evicted)
    }

    /// Present before absent, then the stronger signal, then the more recent sighting, then the identifier.
    private static func rank(_ candidate: Candidate, now: Duration) -> (Int, Int, Duration, DeviceID) {
        let present = now - candidate.lastSeen < absentAfter ? 1 : 0
        return (present, candidate.signal ?? Int.min / 2, candidate.lastSeen, candidate.id)
    }
}
