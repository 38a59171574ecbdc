// A network's bars: its strongest access point's signal on four thresholds, with hysteresis (SignalBars, which the
// Bluetooth devices' bars share).

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
        SignalBars.bars(signal: signal, previous: previous, thresholds: barThresholds, hysteresis: barHysteresis)
    }
}

/// Bars from a signal on thresholds, with hysteresis: the one rule of the Wi-Fi networks' and the Bluetooth devices'.
enum SignalBars {
    /// The plain count of `thresholds` that `signal` reaches at first (no `previous`); after that a bar is gained
    /// only `hysteresis` dB above its threshold and lost only that far below.
    static func bars(signal: Int, previous: Int?, thresholds: [Int], hysteresis: Int) -> Int {
        let plain = thresholds.filter { signal >= $0 }.count
        guard let previous else { return plain }
        let gained = thresholds.filter { signal >= $0 + hysteresis }.count
        let kept = thresholds.filter { signal > $0 - hysteresis }.count
        if gained > previous { return gained }
        if kept < previous { return kept }
        return previous
    }
}
