// The device table's one derivation: a device from the evidence its origin has (DeviceTable+Derivation.swift gathers
// it), identified and published — or forgotten once it has not answered long enough.

import Discovery
import PeerScanModel

extension DeviceTable {
    /// What a device is derived from: its mDNS host if it has one, its MAC addresses and addresses, or the Bluetooth
    /// advertiser it is; whether it answers and since when its presence counts; how long it stays online and listed
    /// after that.
    struct Evidence {
        var origin: Origin
        /// The key by which a LAN device not published yet finds the Bluetooth advertisers merged with it.
        var key: IdentityKey?
        var host: (name: String, host: MDNSHost)?
        var macs: Set<String> = []
        var addresses: Set<String> = []
        /// The advertiser's facts, for a Bluetooth device.
        var advertiser: Advertiser?
        /// Whether it answers now (an advertiser: heard within ``BluetoothSettings/away``), and since when its
        /// presence counts.
        var answering: Bool
        var last: Duration
        /// How long after `last` it is online while it does not answer, and listed at all.
        var offlineAfter: Duration
        var forgetAfter: Duration
    }

    /// What a Bluetooth device's evidence adds: the facts of its advertisements, and whether it is kept.
    struct Advertiser {
        var facts: BluetoothFacts
        var isKept: Bool
        var vendor: String?
    }

    /// Derives a device from its evidence (a LAN device with the Bluetooth advertisers merged with it): publishes it,
    /// or forgets it once it has not answered for its `forgetAfter`; asks its mDNS host if it is due a question.
    mutating func derive(_ evidence: Evidence, now: Duration) {
        let origin = evidence.origin
        let macs = evidence.macs
        let merged =
            evidence.advertiser != nil
            ? nil : bluetoothHeard(of: published.id(of: origin) ?? evidence.key.flatMap(identities.id(for:)), now: now)
        let online =
            evidence.answering || now < evidence.last + evidence.offlineAfter || bluetooth.isHeard(merged, now: now)
        if !online && now >= evidence.last + evidence.forgetAfter {
            if let hostName = evidence.host?.name { forget(hostName: hostName) }
            for mac in macs { forget(mac: mac) }
            if case .bluetooth(let identity) = origin { bluetooth.remove(identity) }
            withdraw(origin, forgets: true)
            return
        }
        let sortedMACs = macs.sorted()
        let facts = evidence.advertiser?.facts ?? merged?.facts
        let device = Device(
            id: identify(evidence, macAddresses: sortedMACs),
            hostName: evidence.host?.name,
            displayName: evidence.host?.host.displayName ?? facts?.name,
            addresses: evidence.addresses.sorted(by: AddressOrder.precedes),
            interfaces: Set(evidence.host?.host.interfaces ?? []).union(interfaces(of: evidence.addresses)).sorted(),
            services: evidence.host?.host.services ?? [],
            macAddresses: sortedMACs,
            vendor: evidence.advertiser.map(\.vendor) ?? sortedMACs.first.flatMap(vendorOf),
            online: online,
            bluetooth: facts
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
        let reason =
            if evidence.advertiser != nil {
                PresenceReason(online ? .answered : .unanswered, [PresenceReason.bluetoothMeans])
            } else if online {
                PresenceReason(.answered, answeringMeans(of: macs, now: now) + bluetooth.means(merged, now: now))
            } else {
                offlineReason(addresses: evidence.addresses, asked: asked)
            }
        publish(device, origin: origin, reason: reason)
        // A Bluetooth device's deadlines are its own (``DeadlineQueue``): it is never silent here.
        silent.note(
            device.id,
            isAnswering: evidence.answering || evidence.advertiser != nil,
            lastAnswer: evidence.last,
            isOnline: online,
            questionAt: nextQuestion(of: origin),
            now: now
        )
    }

    /// The identifier of the device derived from `evidence`: the one its origin has, or one from ``identities`` (an
    /// advertiser not kept, or a private address no IRK resolves, is known by its address only). Binds the device's
    /// keys either way.
    private mutating func identify(_ evidence: Evidence, macAddresses: [String]) -> DeviceID {
        let origin = evidence.origin
        let current = published.id(of: origin)
        let published = self.published
        let isAvailable = { (id: DeviceID) -> Bool in
            guard let holder = published.origin(of: id), holder != origin else { return true }
            // A host takes over the item of a MAC-only device of one of its MAC addresses; a LAN device that of a
            // Bluetooth device merged with it.
            if case .host = origin, case .mac(let mac) = holder, macAddresses.contains(mac) { return true }
            return holder.isBluetooth && !origin.isBluetooth
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
        case .bluetooth(.address(let address)) where evidence.advertiser?.isKept == true:
            return identities.identify(
                key: .bluetooth(address),
                preferred: DeviceID.make(bluetoothAddress: address),
                current: current,
                isAvailable: isAvailable
            )
        case .bluetooth(.address(let address)), .bluetooth(.ephemeral(let address)):
            return current ?? DeviceID.make(bluetoothAddress: address)
        case .bluetooth(.resolved(let target)):
            return target
        }
    }

    /// Takes out what `origin` derived: the device went — forgotten (its keys and label too, if `forgets`), or merged
    /// into the device of `owner`. Nothing if `origin` derives no device.
    mutating func withdraw(_ origin: Origin, mergedInto owner: Origin? = nil, forgets: Bool = false) {
        guard let (id, item) = published.withdraw(origin), let old = item.device else { return }
        silent.remove(id)
        outbox.add(Change(id: id, item: nil))
        if old.bluetooth?.isEphemeral == true { return }  // listed while heard: no line of its own
        if let survivor = owner.flatMap({ published.id(of: $0) }), survivor != id, identities.merge(id, into: survivor)
        {
            labels.merge(id, into: survivor)
            if let origin = published.origin(of: survivor) { markForDerivation(origin) }  // its label may have changed
            outbox.add(.merged(old, into: survivor))
        } else {
            if forgets {
                identities.forget(id)
                labels.forget(id)
            }
            outbox.add(.forgotten(old))
        }
    }

    /// Publishes `derived` as what `origin` derives now. `reason` becomes the device's ``Device/presenceReason`` if it
    /// is new or its presence changes; otherwise it keeps the one it has.
    mutating func publish(_ derived: Device, origin: Origin, reason: PresenceReason?) {
        let id = derived.id
        var device = derived.labelled(labels.label(of: id))
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
        published.publish(item, id: id, origin: origin)  // taken over, if another origin derived it
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
}
