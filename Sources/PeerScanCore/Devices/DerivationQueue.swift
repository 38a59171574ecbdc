// The device table's queue of LAN derivations: the mDNS hosts and MAC addresses whose devices the next take derives
// again, and the new MAC-only devices held back while the first mDNS browse settles. A value the table owns; what to
// mark is decided in DeviceTable+Publishing.swift, the take in DeviceTable.swift drains it.

/// The mDNS hosts and MAC addresses whose devices ``DeviceTable/takeChanges(now:)`` derives again, and the MAC
/// addresses whose new MAC-only devices are held back (``DeviceTable/holdsNeighbourOnlyDevices``) until the hold is
/// lifted.
///
/// ## Performance
/// Marking is O(1) per key; ``markedHosts`` and ``markedMACs`` sort, O(k log k) for k keys marked.
struct DerivationQueue: Sendable {
    private var hosts: Set<String> = []
    private var macs: Set<String> = []
    private var held: Set<String> = []

    /// Whether new MAC-only devices are held back. Clearing it marks every MAC address held meanwhile.
    var holdsNewMACs = false {
        didSet {
            guard !holdsNewMACs else { return }
            macs.formUnion(held)
            held = []
        }
    }

    /// The MAC addresses whose new MAC-only devices are held back now.
    var heldMACs: Set<String> { held }

    /// Whether nothing is marked (held MAC addresses are not marked).
    var isEmpty: Bool { hosts.isEmpty && macs.isEmpty }

    /// The mDNS hosts marked, in order.
    /// - Complexity: O(k log k) for k hosts marked.
    var markedHosts: [String] { hosts.sorted() }

    /// The MAC addresses marked, in order.
    /// - Complexity: O(k log k) for k MAC addresses marked.
    var markedMACs: [String] { macs.sorted() }

    /// Derives the device of the mDNS host `hostName` again.
    mutating func mark(host hostName: String) { hosts.insert(hostName) }

    /// Derives the device of `mac` again.
    mutating func mark(mac: String) { macs.insert(mac) }

    /// Derives the devices of `macs` again.
    /// - Complexity: O(m) for m MAC addresses.
    mutating func mark(macs more: some Sequence<String>) { macs.formUnion(more) }

    /// Takes `hostName` off the queue (its derivation runs now).
    mutating func unmark(host hostName: String) { hosts.remove(hostName) }

    /// Takes `mac` off the queue (its derivation runs now).
    mutating func unmark(mac: String) { macs.remove(mac) }

    /// Whether the MAC-only device of `mac` is held back now: it is new (`isNew`, not published yet) while
    /// ``holdsNewMACs`` is set. A held MAC address is marked again once the hold is lifted; one not held is no longer
    /// remembered as held.
    /// - Returns: `true` if the device must not be published now.
    mutating func holdsBack(mac: String, isNew: Bool) -> Bool {
        guard holdsNewMACs && isNew else {
            held.remove(mac)
            return false
        }
        held.insert(mac)
        return true
    }

    /// Forgets what is marked and held (the hold itself stays as set).
    mutating func removeAll() {
        hosts = []
        macs = []
        held = []
    }
}
