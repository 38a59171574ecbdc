// A network's bars: its strongest access point's signal on four thresholds, with hysteresis.

extension WirelessTable {
    /// The signal thresholds of 1, 2, 3 and 4 bars, in dBm.
    public static let barThresholds = [-88, -77, -66, -55]
    /// How far past a threshold a signal must go to change the bars.
    public static let barHysteresis = 3

    /// The bars of a signal, given the bars shown before: the plain count of thresholds reached at first; after
    /// that a bar is gained only when the signal is ``barHysteresis`` dB above its threshold and lost only when it
    /// is that far below, so that signals moving by ±2 dB around a threshold change nothing.
    ///
    /// - Parameters:
    ///   - signal: The strongest access point's signal, in dBm.
    ///   - previous: The bars shown before, or `nil`.
    /// - Returns: 0 to 4.
    public static func bars(signal: Int, previous: Int?) -> Int {
        let plain = barThresholds.filter { signal >= $0 }.count
        guard let previous else { return plain }
        let gained = barThresholds.filter { signal >= $0 + barHysteresis }.count
        let kept = barThresholds.filter { signal > $0 - barHysteresis }.count
        if gained > previous { return gained }
        if kept < previous { return kept }
        return previous
    }
}
