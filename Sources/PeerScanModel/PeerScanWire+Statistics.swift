extension PeerScanWire {
    /// A histogram as Prometheus holds one: for each bucket's upper bound, how many observations were at most that
    /// (cumulative; the `+Inf` bucket is ``count``), their sum and their count.
    public struct Histogram: Codable, Sendable, Hashable {
        /// The buckets' upper bounds, increasing.
        public var bounds: [Double]
        /// For each bound, the observations at most that (as many as ``bounds``).
        public var counts: [UInt64]
        /// The sum of the observations.
        public var sum: Double
        /// The observations.
        public var count: UInt64

        /// Creates a histogram.
        public init(bounds: [Double], counts: [UInt64], sum: Double, count: UInt64) {
            self.bounds = bounds
            self.counts = counts
            self.sum = sum
            self.count = count
        }
    }

    /// The clients connected now, by API.
    public struct ClientCounts: Codable, Sendable, Hashable {
        /// Connections to the Varlink socket (the caller's included).
        public var varlink: Int
        /// Whether the MQTT mirror's broker connection is up; `nil` without a broker configured.
        public var mqtt: Bool?

        /// Creates counts.
        public init(varlink: Int, mqtt: Bool?) {
            self.varlink = varlink
            self.mqtt = mqtt
        }
    }

    /// The daemon's own process figures.
    public struct ProcessStatistics: Codable, Sendable, Hashable {
        /// Resident memory, in bytes.
        public var residentBytes: UInt64
        /// CPU time, user and system, in seconds.
        public var cpuSeconds: Double
        /// Open file descriptors.
        public var openDescriptors: Int
        /// The open-file limit (soft).
        public var maximumDescriptors: Int
        /// When the process started, in seconds since the Unix epoch.
        public var startTime: Double

        /// Creates figures.
        public init(
            residentBytes: UInt64,
            cpuSeconds: Double,
            openDescriptors: Int,
            maximumDescriptors: Int,
            startTime: Double
        ) {
            self.residentBytes = residentBytes
            self.cpuSeconds = cpuSeconds
            self.openDescriptors = openDescriptors
            self.maximumDescriptors = maximumDescriptors
            self.startTime = startTime
        }
    }

    /// How many alerts a destination took (`sent`), refused for good (`rejected`) or lost unsent (`dropped`) since
    /// the daemon started.
    public struct AlertOutcomeCount: Codable, Sendable, Hashable {
        /// The destination's name (without secrets).
        public var destination: String
        /// `sent`, `rejected` or `dropped`.
        public var outcome: String
        public var count: UInt64

        /// Creates a count.
        public init(destination: String, outcome: String, count: UInt64) {
            self.destination = destination
            self.outcome = outcome
            self.count = count
        }
    }

    /// `GetStatistics()` reply: what only the daemon knows, for an exporter (peerscan-web's `/metrics`).
    public struct StatisticsReply: Codable, Sendable, Hashable {
        /// The probe rounds' durations since start, in seconds; `nil` while the daemon does not probe.
        public var probeRoundDurations: Histogram?
        /// `address conflict` lines logged since start.
        public var addressConflicts: UInt64
        /// `possible evil twin` lines logged since start.
        public var evilTwinWarnings: UInt64
        /// The clients connected now.
        public var clients: ClientCounts
        /// The daemon's process; `nil` where `/proc` cannot be read.
        public var process: ProcessStatistics?
        /// The alerts' outcomes since start, by destination, then outcome.
        public var alerts: [AlertOutcomeCount]

        /// Creates a reply.
        public init(
            probeRoundDurations: Histogram?,
            addressConflicts: UInt64,
            evilTwinWarnings: UInt64,
            clients: ClientCounts,
            process: ProcessStatistics?,
            alerts: [AlertOutcomeCount] = []
        ) {
            self.probeRoundDurations = probeRoundDurations
            self.addressConflicts = addressConflicts
            self.evilTwinWarnings = evilTwinWarnings
            self.clients = clients
            self.process = process
            self.alerts = alerts
        }
    }
}
