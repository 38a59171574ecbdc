// The Wi-Fi options: whether Wi-Fi networks are listed, whether peerscand triggers scans itself, how long a network
// stays after it was last heard, and how many are listed at most.

import ArgumentParser
import DeviceRegistry
import PeerScanCore

/// What the Wi-Fi source needs from the command line, for the composition root to hand to
/// `WirelessDiscoverySource(interfaces:scanInterval:clock:logger:)`.
struct WiFiSourceSettings: Equatable {
    /// The wireless interfaces to follow (`--interface`); empty: every one.
    var interfaces: [String]
    /// How often to trigger a scan on every wireless interface that is up; `nil`: never (follow the scans others
    /// trigger).
    var scanInterval: Duration?
}

/// peerscand's Wi-Fi options (`--no-wifi`, `--wifi-scan-interval`, `--wifi-expire`, `--wifi-networks-max`).
struct WiFiOptions: ParsableArguments {
    @Flag(
        inversion: .prefixedNo,
        help: ArgumentHelp(
            "List the Wi-Fi networks the host's wireless interfaces hear (nl80211), and those interfaces.",
            discussion: """
                Every wireless interface, or those of --interface. Unprivileged, peerscand follows the scans others \
                trigger (wpa_supplicant, NetworkManager, iwd) and reads the kernel's scan results after each. \
                --no-wifi leaves Wi-Fi out.
                """
        )
    )
    var wifi = true

    @Option(
        help: ArgumentHelp(
            "Seconds between the scans peerscand triggers on every wireless interface that is up; 0: never.",
            discussion: """
                Triggering a scan needs CAP_NET_ADMIN (see the probe drop-in in docs/operations.md); without it \
                peerscand logs `wifi scan refused` once and follows the scans others trigger. A scan takes a few \
                seconds and interrupts the interface's traffic briefly on each channel it visits.
                """
        )
    )
    var wifiScanInterval: Double = 0

    @Option(
        help: ArgumentHelp(
            "Seconds after a Wi-Fi network was last heard that it leaves the list; at least 30.",
            discussion: """
                Likewise for one access point of a network. The kernel keeps an access point in its scan results \
                for 30 s after it was last heard; a network that returns keeps its id.
                """
        )
    )
    var wifiExpire: Double = 150

    @Option(
        help: ArgumentHelp(
            "The most Wi-Fi networks listed (\(NetworkCapacity.defaultMaximum) by default).",
            discussion: """
                Past it, a network newly heard is listed only in place of one absent for 30 s or more (a network \
                heard stays listed); the networks this host is connected to and the known ones (peerscanctl wifi \
                trust) are always listed. Reaching it is logged once (`system limit reached limit=wifi-networks`) \
                and shown in the host item's limits. The default holds a busy city street's networks (see \
                docs/scanning.md). The registry keeps at most \(NetworkRowLimit.networksPerListed) times as many \
                networks heard, and \(NetworkRowLimit.accessPointsPerNetwork) times that many access points, besides \
                the connected and known ones: past that, the oldest heard are forgotten before --forget-after.
                """
        )
    )
    var wifiNetworksMax: Int = NetworkCapacity.defaultMaximum

    func validate() throws {
        guard (1...65536).contains(wifiNetworksMax) else {
            throw ValidationError("--wifi-networks-max must be between 1 and 65536.")
        }
        guard wifiScanInterval == 0 || (1...86400).contains(wifiScanInterval) else {
            throw ValidationError(
                "--wifi-scan-interval must be 0 (never trigger a scan) or between 1 and 86400 seconds."
            )
        }
        guard (30...86400).contains(wifiExpire) else {
            throw ValidationError(
                "--wifi-expire must be between 30 and 86400 seconds (the kernel keeps an access point 30 s)."
            )
        }
    }

    /// How long a network stays after it was last heard.
    var expiry: Duration { .seconds(wifiExpire) }

    /// The store's wireless table, with this expiry and cap.
    func makeTable(known: KnownNetworks, vendorOf: @escaping @Sendable (String) -> String?) -> WirelessTable {
        WirelessTable(
            expiry: expiry,
            capacity: NetworkCapacity(maximum: wifiNetworksMax),
            known: known,
            vendorOf: vendorOf
        )
    }

    /// The most Wi-Fi rows the registry keeps besides the baseline, from the cap.
    var networkRowLimit: NetworkRowLimit { NetworkRowLimit(listing: wifiNetworksMax) }

    /// The Wi-Fi source's settings, or `nil` with `--no-wifi`.
    ///
    /// - Parameter interfaces: `--interface`'s list.
    func sourceSettings(interfaces: [String]) -> WiFiSourceSettings? {
        guard wifi else { return nil }
        return WiFiSourceSettings(
            interfaces: interfaces,
            scanInterval: wifiScanInterval > 0 ? .seconds(wifiScanInterval) : nil
        )
    }
}
