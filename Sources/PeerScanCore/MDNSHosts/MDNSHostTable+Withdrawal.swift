// The withdrawal of an interface whose link went down: what was learnt there is kept until the daemon has learnt the
// link again, and only what it does not report again goes.

import Discovery

extension MDNSHostTable {
    /// Removes what was learnt on `interface` before it was withdrawn and not reported again since (see
    /// ``MDNSEvent/interfaceWithdrawn(_:)``): once its link has been back long enough for the daemon to learn
    /// the link again, or it stayed down that long.
    ///
    /// A daemon withdraws a large link, and learns it again, slowly (on the test LAN, 2,200 services: about a minute,
    /// at the pace it frees and takes resolvers over D-Bus). So the rows not seen again go only once the daemon has
    /// reported from the link again and then a whole round passed in which nothing was withdrawn or reported again.
    /// The address records not reported again go only in the last round: a host's records come back piecemeal (an
    /// answer carrying one of its addresses is no sign the others are gone).
    ///
    /// - Parameter final: Drop everything withdrawn on the interface and not reported again (the last round, or a
    ///   link that is still down).
    /// - Returns: How many devices lost something (a row or an address record), and how many rows and hosts of the
    ///   interface still wait (another round is due while it is not 0).
    /// - Complexity: O(w) for w rows and address records withdrawn on any interface.
    @discardableResult
    public mutating func finishWithdrawal(of interface: String, final: Bool = true) -> (devices: Int, waiting: Int) {
        let wasBusy = interfacesActiveThisRound.remove(interface) != nil
        let isBack = interfacesReportedAgain.contains(interface)
        var touched: Set<String> = []
        var waiting = 0
        if final || (isBack && !wasBusy) {
            for key in withdrawnRows where key.interface == interface {
                if let host = rows[key]?.hostName { touched.insert(host) }
                remove(key)
            }
        } else {
            waiting += withdrawnRows.count { $0.interface == interface }
        }
        for (host, records) in withdrawnAddressRecords {
            let withdrawn = records.filter { $0.interface == interface }
            guard !withdrawn.isEmpty else { continue }
            guard final else {
                waiting += 1
                continue
            }
            withdrawnAddressRecords[host]?.subtract(withdrawn)
            if withdrawnAddressRecords[host]?.isEmpty == true { withdrawnAddressRecords[host] = nil }
            guard addressRecords[host] != nil else { continue }
            addressRecords[host]?.subtract(withdrawn)
            changedHosts.insert(host)
            touched.insert(host)
        }
        if waiting == 0 {
            interfacesReportedAgain.remove(interface)
            resyncingInterfaces.remove(interface)
        }
        return (touched.count, waiting)
    }

    /// A row withdrawn with its interface is reported again.
    mutating func confirmWithdrawn(_ key: ServiceInstanceKey) {
        if withdrawnRows.remove(key) != nil { noteReconfirmation(on: key.interface) }
    }

    mutating func noteReconfirmation(on interface: String) {
        interfacesActiveThisRound.insert(interface)
        interfacesReportedAgain.insert(interface)
    }

    /// The devices with a row learnt on `interface` (for the log).
    /// - Complexity: O(r) for r rows.
    public func deviceCount(on interface: String) -> Int {
        Set(rows.lazy.filter { $0.key.interface == interface }.map(\.value.hostName)).count
    }

    mutating func forgetWithdrawals() {
        withdrawnInterfaces = []
        resyncingInterfaces = []
        withdrawnRows = []
        withdrawnAddressRecords = [:]
        interfacesActiveThisRound = []
        interfacesReportedAgain = []
    }
}
