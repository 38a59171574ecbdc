/// The kinds of source peerscand has, in the order it starts them. ``Peerscand/makeSources(mdns:clock:logger:)`` makes
/// its sources from these cases, so a new source is a new case; `--help` names each by its ``helpTerms`` (a test holds
/// the help to them).
enum DaemonSource: CaseIterable, Sendable {
    /// mDNS/DNS-SD through avahi-daemon.
    case mdns
    /// The kernel's neighbour table (ARP, NDP), and the one-shot mDNS questions to hosts whose entries failed.
    case neighbourTable
    /// Wi-Fi networks and access points through nl80211.
    case wifi
    /// Bluetooth LE advertisers through BlueZ.
    case bluetooth

    /// The words by which `--help` names this source: what it finds, and through what.
    var helpTerms: [String] {
        switch self {
        case .mdns: ["mDNS", "Avahi"]
        case .neighbourTable: ["neighbour table"]
        case .wifi: ["Wi-Fi", "nl80211"]
        case .bluetooth: ["Bluetooth LE", "BlueZ"]
        }
    }
}
