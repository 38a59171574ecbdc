// The device table's derivation of LAN devices: the devices marked dirty derived again from their mDNS hosts and MAC
// addresses, identified and published (the take, in DeviceTable.swift, derives what is marked).

import Discovery
import PeerScanModel

extension DeviceTable {
    // MARK: Derivation

    /// Derives the device of `origin` again at the next take.
    mutating func markForDerivation(_ origin: Origin) {
        switch origin {
        case .host(let hostName): derivations.mark(host: hostName)
        case .mac(let mac): derivations.mark(mac: mac)
        case .bluetooth(let identity): bluetooth.dirty.insert(identity)
        }
    }

    mutating func markDirty(host hostName: String) {
        derivations.mark(host: hostName)
        for address in mdnsHosts[hostName]?.addresses ?? [] {
            if let mac = addressBook.macAddress(of: address) { derivations.mark(mac: mac) }
        }
        if let id = idByOrigin[.host(hostName)] { derivations.mark(macs: linkedMACs(of: id)) }
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
        case .bluetooth(let address): bluetooth.dirty.insert(.address(address))
        }
    }

    /// The published device `mac`'s key is bound to, when another origin derives it (an mDNS host's, or another MAC
    /// address's: the registry knows them as one device, by an automatic merge or a person's).
    private func linkedOrigin(of mac: String) -> Origin? {
        guard let id = identities.id(for: .macAddress(mac)), let origin = origins[id], origin != .mac(mac),
            !origin.isBluetooth  // a LAN device takes a merged Bluetooth device's item over
        else {
            return nil
        }
        return origin
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
            let hostID = idByOrigin[.host(hostName)]
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

    /// What the Bluetooth advertisers bound to `id` (its `bluetooth:` keys, or its IRK) say: for a LAN device merged
    /// with a Bluetooth one.
    /// - Complexity: O(k) for k keys of the device.
    private func bluetoothHeard(of id: DeviceID?, now: Duration) -> BluetoothAdvertisers.Heard? {
        guard let id else { return nil }
        var bound: [BluetoothIdentity] = [.resolved(id)]
        for key in identities.keys(of: id) {
            if case .bluetooth(let address) = key { bound.append(.address(address)) }
        }
        return bluetooth.heard(bound, now: now)
    }

    private func interfaces(of addresses: Set<String>) -> Set<String> {
        Set(addresses.compactMap { addressBook.interface(of: $0) })
    }

    /// Derives the device of an mDNS host: its records, the MAC addresses its addresses resolve to (and those the
    /// registry binds to it while no other host claims them), and every address of those.
    mutating func derive(hostName: String, now: Duration) {
        let origin = Origin.host(hostName)
        guard let host = mdnsHosts[hostName] else {
            publish(nil, origin: origin, answering: false, lastAnswer: now)
            return
        }
        var macs = Set(host.addresses.compactMap { addressBook.macAddress(of: $0) }).filter {
            !isApart(mac: $0, hostName: hostName)
        }
        // The MAC addresses the registry knows as this device's are its own too, while no other host claims them
        // (its mDNS addresses may not be resolved yet: after a restart, or an IPv6-only announcement).
        if let known = idByOrigin[origin] ?? identities.id(for: .hostName(DeviceID.canonicalHostName(hostName))) {
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
            last: host.isPresent ? now : host.lastSeen
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
            publish(nil, origin: origin, answering: false, lastAnswer: now, mergedInto: owner)
            return
        }
        if derivations.holdsBack(mac: mac, isNew: idByOrigin[origin] == nil) { return }
        var macs: Set<String> = [mac]
        if let known = idByOrigin[origin] ?? identities.id(for: .macAddress(mac)) {
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
            last: addressBook.presenceStart(after: last, macs: macs)
        )
        derive(evidence, now: now)
    }

    /// What a LAN device is derived from: its mDNS host if it has one, its MAC addresses and addresses, and how it
    /// answers.
    private struct Evidence {
        var origin: Origin
        /// The key by which a device not published yet finds the Bluetooth advertisers merged with it.
        var key: IdentityKey
        var host: (name: String, host: MDNSHost)?
        var macs: Set<String>
        var addresses: Set<String>
        /// Whether it answers now, and since when its presence counts.
        var answering: Bool
        var last: Duration
    }

    /// Derives a LAN device from its evidence and the Bluetooth advertisers merged with it: publishes it, or forgets
    /// it once it has not answered for ``Presence/forgetAfter``; asks its mDNS host if it is due a question.
    private mutating func derive(_ evidence: Evidence, now: Duration) {
        let origin = evidence.origin
        let macs = evidence.macs
        let heard = bluetoothHeard(of: idByOrigin[origin] ?? identities.id(for: evidence.key), now: now)
        let online =
            evidence.answering || now < evidence.last + presence.offlineAfter || bluetooth.isHeard(heard, now: now)
        if !online && now >= evidence.last + presence.forgetAfter {
            if let hostName = evidence.host?.name { forget(hostName: hostName) }
            for mac in macs { forget(mac: mac) }
            publish(nil, origin: origin, answering: false, lastAnswer: evidence.last, forgets: true)
            return
        }
        let sortedMACs = macs.sorted()
        let device = Device(
            id: identify(origin, macAddresses: sortedMACs),
            hostName: evidence.host?.name,
            displayName: evidence.host?.host.displayName ?? heard?.facts.name,
            addresses: evidence.addresses.sorted(by: AddressOrder.precedes),
            interfaces: Set(evidence.host?.host.interfaces ?? []).union(interfaces(of: evidence.addresses)).sorted(),
            services: evidence.host?.host.services ?? [],
            macAddresses: sortedMACs,
            vendor: sortedMACs.first.flatMap(vendorOf),
            online: online,
            bluetooth: heard?.facts
        )
        var asked: MDNSHost?
        if let hostName = evidence.host?.name, !macs.isEmpty {
            askIfDue(
                hostName: hostName,
                device: device,
                isConfirmed: macs.contains { addressBook.isConfirmed(mac: $0) },
                isDoubted: !evidence.answering || macs.contains { addressBook.hasFailedEntry(mac: $0) },
                now: now
            )
            asked = mdnsHosts[hostName]
        }
        publish(
            device,
            origin: origin,
            answering: evidence.answering,
            lastAnswer: evidence.last,
            reason: online
                ? PresenceReason(.answered, answeringMeans(of: macs, now: now) + bluetooth.means(heard, now: now))
                : offlineReason(addresses: evidence.addresses, asked: asked)
        )
    }

    /// The identifier of the device derived from `origin`: the one it has, or one from ``identities``. Binds the
    /// device's keys either way.
    private mutating func identify(_ origin: Origin, macAddresses: [String]) -> DeviceID {
        let current = idByOrigin[origin]
        let origins = self.origins
        let isAvailable = { (id: DeviceID) -> Bool in
            guard let holder = origins[id], holder != origin else { return true }
            // A host takes over the item of a MAC-only device of one of its MAC addresses; a LAN device that of a
            // Bluetooth device merged with it.
            if case .host = origin, case .mac(let mac) = holder, macAddresses.contains(mac) { return true }
            if holder.isBluetooth { return true }
            return false
        }
        switch origin {
        case .host(let hostName):
            return identities.identify(
                hostName: hostName,
                macAddresses: macAddresses,
                current: current,
                isAvailable: isAvailable
            )
        case .mac(let mac):
            return identities.identify(macAddress: mac, current: current, isAvailable: isAvailable)
        case .bluetooth:
            preconditionFailure("a Bluetooth identity is identified in DeviceTable+Bluetooth.swift")
        }
    }

    /// Publishes what `origin` derives now: `device`, or nothing (the device went: forgotten, if `forgets`, or merged
    /// into the device of `owner`). `reason` becomes the device's ``Device/presenceReason`` if it is new or its
    /// presence changes; otherwise it keeps the one it has.
    mutating func publish(
        _ derived: Device?,
        origin: Origin,
        answering: Bool,
        lastAnswer last: Duration,
        reason: PresenceReason? = nil,
        mergedInto owner: Origin? = nil,
        forgets: Bool = false
    ) {
        guard let derived else {
            guard let id = idByOrigin.removeValue(forKey: origin), origins[id] == origin,
                let old = published.removeValue(forKey: id)?.device
            else { return }
            origins[id] = nil
            silent.remove(id)
            outbox.add(Change(id: id, item: nil))
            if old.bluetooth?.isEphemeral == true { return }  // listed while heard: no line of its own
            if let survivor = owner.flatMap({ idByOrigin[$0] }), survivor != id, identities.merge(id, into: survivor) {
                labels.merge(id, into: survivor)
                if let origin = origins[survivor] { markForDerivation(origin) }  // its label may have changed
                outbox.add(.merged(old, into: survivor))
            } else {
                if forgets {
                    identities.forget(id)
                    labels.forget(id)
                }
                outbox.add(.forgotten(old))
            }
            return
        }
        let id = derived.id
        var device = derived.labelled(labels.label(of: id))
        // Taken over (a host takes its MAC-only device's item), unless the holder derives another device already.
        if let holder = origins[id], holder != origin, idByOrigin[holder] == id { idByOrigin[holder] = nil }
        let wasDisplaced = splits.takeDisplaced(id)
        let oldItem = published[id] ?? wasDisplaced
        let old = oldItem?.device
        if let old, old.online == device.online {
            device.presenceReason = old.presenceReason
        } else {
            device.presenceReason = reason
        }
        // An unchanged device keeps the box it was published in: the snapshot holds that one.
        let item = old == device ? oldItem ?? .device(device) : .device(device)
        published[id] = item
        origins[id] = origin
        idByOrigin[origin] = id
        // A Bluetooth device's deadlines are its own (``DeadlineQueue``): not checked on every take.
        silent.note(id, isAnswering: answering || origin.isBluetooth, lastAnswer: last)
        guard old != device || wasDisplaced != nil else { return }
        outbox.add(Change(id: id, item: item))  // after a displacement, even unchanged: it stays
        guard old != device else { return }
        // A Bluetooth device listed only while heard (ephemeral, or not admitted yet) has no lines of its own; one
        // that is admitted is new (or back) then.
        let isKept = device.bluetooth?.isEphemeral != true
        guard isKept else { return }
        if let old, old.bluetooth?.isEphemeral != true {
            if old.online != device.online {
                outbox.add(device.online ? .online(device) : .offline(device))
            }
        } else {
            let isReturn = identities.notePublished(id)
            guard !splits.takeSplitOff(id) else { return }  // a key a person split off: `device split` says it
            outbox.add(isReturn ? .returned(device) : .appeared(device))
        }
    }
}
