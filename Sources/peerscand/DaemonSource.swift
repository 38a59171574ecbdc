/// The kinds of source peerscand has, in the order it starts them. ``Peerscand/makeSources(mdns:clock:logger:)`` makes
/// its sources from these cases, so a new source is a new case.
enum DaemonSource: CaseIterable, Sendable {
    /// mDNS/DNS-SD through avahi-daemon.
    case mdns
    /// The kernel's neighbour table (ARP, NDP), and the one-shot mDNS questions to hosts whose entries failed.
    case neighbourTable
    /// Wi-Fi networks and access points through nl80211.
    case wifi
    /// Bluetooth LE advertisers through BlueZ.
    case bluetooth
}
