/// What a discovery source tells the daemon: one case per source, each carrying that source's own events.
///
/// Every event comes from one source and concerns the store's part for it: the mDNS source's (its state, the
/// interfaces it browses and withdraws, its service instances and host addresses) go to the mDNS host table and the
/// resync schedule; the neighbour source's and the question source's to the device table; Wi-Fi to the wireless table;
/// Bluetooth to the device table. No event is shared between sources: a new source is a case here, and its part in the
/// store.
public enum DiscoveryEvent: Sendable, Equatable {
    /// What the mDNS source (Avahi) reported: service instances, one per (interface, IP protocol, service) as mDNS
    /// sees them, duplicates and all, which the store's mDNS host table groups into devices; its state and the
    /// interfaces it browses.
    case mdns(MDNSEvent)
    /// What the neighbour source (the kernel's ARP/NDP table) and the question source (mDNS questions asked of a host
    /// whose neighbour entries stopped answering) observed, which the device table takes as it is.
    case neighbour(NeighbourObservation)
    /// What the Wi-Fi source observed (nl80211): the wireless interfaces and the access points in range.
    case wireless(WirelessObservation)
    /// What the Bluetooth LE source observed (BlueZ): the controllers and the devices advertising.
    case bluetooth(BluetoothObservation)
}
