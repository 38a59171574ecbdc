// The device table's derivation: what a take derives again (the devices marked dirty), and the evidence of each
// origin — an mDNS host with the MAC addresses its addresses resolve to, a MAC address no host claims, a Bluetooth
// advertiser — gathered for the one derivation (DeviceTable+Publishing.swift) that publishes the device.

import Discovery
import PeerScanModel

extension DeviceTable {
    // MARK: Marking

    /// Derives the device of `origin` again at the next take.
    mutating func markForDerivation(_ origin: Origin) {
        switch origin {
        case .host(let hostName): derivations.mark(host: hostName)
        case .mac(let mac): derivations.mark(mac: mac)
        case .bluetooth(let identity): bluetooth.mark(identity)
        }
    }

    mutating func markDirty(host hostName: String) {
        derivations.mark(host: hostName)
        for address in mdnsHosts[hostName]?.addresses ?? [] {
            if let mac = addressBook.macAddress(of: address) { derivations.mark(mac: mac) }
        }
        if let id = published.id(of: .host(hostName)) { derivations.mark(macs: linkedMACs(of: id)) }
    }

    mutating func markDirty(mac: String) {
        derivations.mark(mac: mac)
        for address in addressBook.addresses(of: mac) {
            for hostName in mdnsHosts.hosts(announcing: address) { derivations.mark(host: hostName) }
        }
        if let origin = linkedOrigin(of: mac) { markForDerivation(origin) }
    }

    /// Derives again whatever `key` is part of.
    mutating func markDirty(_ key: IdentityKey) {
        switch key {
        case .hostName(let hostName): markDirty(host: hostName)
        case .macAddress(let mac): markDirty(mac: mac)
        case .bluetooth(let address): bluetooth.mark(.address(address))
        }
    }

    /// The published device `mac`'s key is bound to, when another origin derives it (an mDNS host's, or another MAC
    /// address's: the registry knows them as one device, by an automatic merge or a person's).
    private func linkedOrigin(of mac: String) -> Origin? {
        guard let id = identities.id(for: .macAddress(mac)), let origin = published.origin(of: id), origin != .mac(mac),
            !origin.isBluetooth  // a LAN device takes a merged Bluetooth device's item over
        else {
            return nil
        }
        return origin
    }

    /// Whether a MAC-only device held back now (``holdsNeighbourOnlyDevices``) is one the identities bind to an mDNS
    /// host name too, and no host claims it yet: a host that spoke mDNS before (the registry remembers its name), whose
    /// records are likely on their way. The first browse waits for such hosts (within its time limit), so that the
    /// first snapshot shows them by their name and services rather than by a MAC address renamed a moment later.
    /// - Complexity: O(h · k log k) for h MAC addresses held and k keys of their devices.
    public var holdsKnownMDNSHosts: Bool {
        derivations.heldMACs.contains { mac in
            guard let id = identities.id(for: .macAddress(mac)), published.origin(of: id) == nil,
                claimants(of: mac).isEmpty
            else { return false }
            return identities.keys(of: id).contains { key in
                if case .hostName = key { true } else { false }
            }
        }
    }

    /// The mDNS hosts that announce one of `mac`'s addresses, but for those a person split apart from it.
    private func claimants(of mac: String) -> Set<String> {
        var hosts: Set<String> = []
        for address in addressBook.addresses(of: mac) { hosts.formUnion(mdnsHosts.hosts(announcing: address)) }
        return hosts.filter { !isApart(mac: mac, hostName: $0) }
    }

    /// Whether a person split `mac` and the mDNS host `hostName` apart (``DeviceIdentities/areApart(_:_:)``).
    private func isApart(mac: String, hostName: String) -> Bool {
        guard let macID = identities.id(for: .macAddress(mac)),
            let hostID = published.id(of: .host(hostName))
                ?? identities.id(for: .hostName(DeviceID.canonicalHostName(hostName)))
        else { return false }
        return identities.areApart(macID, hostID)
    }

    /// The MAC addresses bound to `id` that answer for some address now.
    private func linkedMACs(of id: DeviceID) -> [String] {
        identities.keys(of: id).compactMap { key in
            guard case .macAddress(let mac) = key, !addressBook.addresses(of: mac).isEmpty else { return nil }
            return mac
        }
    }

    /// Whether no mDNS host other than `hostName` claims one of `mac`'s addresses.
    private func isUnclaimed(_ mac: String, except hostName: String? = nil) -> Bool {
        claimants(of: mac).allSatisfy { $0 == hostName }
    }

    // MARK: Evidence

    /// Derives the device of an mDNS host: its records, the MAC addresses its addresses resolve to (and those the
    /// registry binds to it while no other host claims them), and every address of those.
    mutating func derive(hostName: String, now: Duration) {
        let origin = Origin.host(hostName)
        guard let host = mdnsHosts[hostName] else {
            withdraw(origin)
            return
        }
        var macs = Set(host.addresses.compactMap { addressBook.macAddress(of: $0) }).filter {
            !isApart(mac: $0, hostName: hostName)
        }
        // The MAC addresses the registry knows as this device's are its own too, while no other host claims them
        // (its mDNS addresses may not be resolved yet: after a restart, or an IPv6-only announcement).
        if let known = published.id(of: origin) ?? identities.id(for: .hostName(DeviceID.canonicalHostName(hostName))) {
            for mac in linkedMACs(of: known) where isUnclaimed(mac, except: hostName) { macs.insert(mac) }
        }
        var addresses = Set(host.addresses)
        for mac in macs { addresses.formUnion(addressBook.addresses(of: mac)) }
        // Liveness from the host where the kernel resolves it; from its records only where it does not.
        var evidence = Evidence(
            origin: origin,
            key: .hostName(hostName),
            host: (hostName, host),
            macs: macs,
            addresses: addresses,
            answering: host.isPresent,
            last: host.isPresent ? now : host.lastSeen,
            offlineAfter: presence.offlineAfter,
            forgetAfter: presence.forgetAfter
        )
        if !macs.isEmpty {
            evidence.answering = macs.contains { addressBook.answers(mac: $0, now: now) }
            var last = max(host.appearedAt, host.answeredAt ?? .zero)
            for mac in macs { last = max(last, addressBook.lastAnswer(of: mac) ?? .zero) }
            evidence.last = addressBook.presenceStart(after: last, macs: macs)
        }
        derive(evidence, now: now)
    }

    /// Derives the device of a MAC address no mDNS host claims: its addresses, and those of the other MAC addresses the
    /// registry binds to it (a person merged them) while no mDNS host claims them.
    mutating func derive(mac: String, now: Duration) {
        let origin = Origin.mac(mac)
        let addresses = addressBook.addresses(of: mac)
        let owner = claimants(of: mac).min().map(Origin.host) ?? linkedOrigin(of: mac)
        guard !addresses.isEmpty, owner == nil else {
            withdraw(origin, mergedInto: owner)
            return
        }
        if derivations.holdsBack(mac: mac, isNew: published.id(of: origin) == nil) { return }
        var macs: Set<String> = [mac]
        if let known = published.id(of: origin) ?? identities.id(for: .macAddress(mac)) {
            for linked in linkedMACs(of: known) where isUnclaimed(linked) { macs.insert(linked) }
        }
        var allAddresses = addresses
        for linked in macs { allAddresses.formUnion(addressBook.addresses(of: linked)) }
        let last = macs.compactMap { addressBook.lastAnswer(of: $0) }.max() ?? now
        let evidence = Evidence(
            origin: origin,
            key: .macAddress(mac),
            host: nil,
            macs: macs,
            addresses: allAddresses,
            answering: macs.contains { addressBook.answers(mac: $0, now: now) },
            last: addressBook.presenceStart(after: last, macs: macs),
            offlineAfter: presence.offlineAfter,
            forgetAfter: presence.forgetAfter
        )
        derive(evidence, now: now)
    }

    /// When `identity`'s device is judged again: it is admitted (a candidate heard for ``BluetoothSettings/admitAfter``),
    /// turns offline (while it is online) or goes (one not kept: when it turns offline). While BlueZ holds a temporary
    /// object of it only its admission (the object's removal derives it again).
    private func bluetoothDeadline(of identity: BluetoothIdentity, isKept: Bool, now: Duration) -> Duration? {
        var dues: [Duration] = []
        if !isKept, case .address = identity, let since = bluetooth.heardSince[identity] {
            dues.append(since + bluetooth.settings.admitAfter)
        }
        if !bluetooth.isPresent(identity), let last = bluetooth.lastHeard(of: identity, now: now) {
            let isOnline = published.id(of: .bluetooth(identity)).flatMap { published.device($0)?.online } ?? true
            dues.append(!isKept || isOnline ? last + bluetooth.settings.away : last + bluetoothForgetAfter(identity))
        }
        return dues.filter { $0 > now }.min()
    }

    /// Derives the device of a Bluetooth identity: its latest advertisement, when it was last heard, whether it is kept —
    /// unless it is merged with a LAN device, which carries its facts.
    mutating func derive(bluetooth identity: BluetoothIdentity, now: Duration) {
        let origin = Origin.bluetooth(identity)
        var isKept = false
        defer { bluetooth.setDeadline(bluetoothDeadline(of: identity, isKept: isKept, now: now), for: identity) }
        bluetooth.pruneRotated(identity, now: now)
        guard let latest = bluetooth.latest(of: identity), let last = bluetooth.lastHeard(of: identity, now: now) else {
            withdraw(origin, forgets: true)
            return
        }
        isKept = isAdmitted(identity, now: now)
        // Merged with a LAN device (its key or its IRK is that device's): the LAN device carries the facts.
        let bound: DeviceID? =
            switch identity {
            case .address(let address): identities.id(for: .bluetooth(address))
            case .resolved(let id): id
            case .ephemeral: nil
            }
        if let bound, let holder = published.origin(of: bound), holder != origin, !holder.isBluetooth {
            withdraw(origin, mergedInto: holder)
            markForDerivation(holder)
            return
        }
        let heard = now < last + bluetooth.settings.away
        let facts = bluetooth.facts(of: latest, isKept: isKept)
        let evidence = Evidence(
            origin: origin,
            advertiser: Advertiser(
                facts: facts,
                isKept: isKept,
                vendor: facts.addressType == .public ? vendorOf(facts.address) : nil
            ),
            answering: heard,
            last: last,
            offlineAfter: .zero,
            forgetAfter: isKept ? bluetoothForgetAfter(identity) : bluetooth.settings.away
        )
        derive(evidence, now: now)
    }
}
