// The device table's questions: asking an mDNS host whose kernel entries stopped answering whether it is still there,
// taking its answers, and saying what went unanswered when a device goes offline.

import Discovery
import PeerScanModel

extension DeviceTable {
    /// The questions to ask since the last take, in order (see ``HostQuestion``): the owner hands them to the sources.
    ///
    /// An mDNS host with a MAC address (one that had records, whether it still has them or not) is asked when one of
    /// its kernel entries fails (or none answers) and none is reachable, while it is online; once more each time it
    /// answered half ``Presence/offlineAfter`` ago and no entry is reachable yet (so that a host that answers only
    /// questions stays online); never again once a question went unanswered, until the kernel hears from it. Nothing
    /// is asked while ``Presence/offlineAfter`` is zero (the device goes at once).
    public mutating func takeQuestions() -> [HostQuestion] {
        outbox.takeQuestions()
    }

    /// A host answered a question now (``NeighbourObservation/hostAnswered(hostName:address:)``); an unknown host is
    /// ignored.
    mutating func noteAnswer(hostName: String, now: Duration) {
        guard mdnsHosts.noteAnswer(hostName: hostName, now: now) else { return }
        markDirty(host: hostName)
    }

    /// When the mDNS host of `origin` is due another question (it answered the last one: half the window after the
    /// answer), if it is.
    func nextQuestion(of origin: Origin) -> Duration? {
        guard case .host(let hostName) = origin, let host = mdnsHosts[hostName], let asked = host.askedAt,
            let answered = host.answeredAt, answered >= asked
        else { return nil }
        return answered + presence.offlineAfter / 2
    }

    private func isQuestionDue(_ host: MDNSHost, now: Duration) -> Bool {
        guard let asked = host.askedAt else { return true }
        guard let answered = host.answeredAt, answered >= asked else { return false }  // the question stands
        return now >= answered + presence.offlineAfter / 2
    }

    /// Asks `hostName` (derived as `device` now) if it is due a question: its kernel entries doubt it (`isDoubted`:
    /// one failed, or none answers) and none confirms it (`isConfirmed`: one is reachable). Forgets the last question
    /// once one does.
    mutating func askIfDue(hostName: String, device: Device, isConfirmed: Bool, isDoubted: Bool, now: Duration) {
        guard let host = mdnsHosts[hostName] else { return }
        if isConfirmed {
            mdnsHosts.noteAsked(hostName: hostName, at: nil)
            return
        }
        // A host that spoke mDNS is asked even once its records went (a laptop whose services stopped, say).
        guard isDoubted, device.online, presence.offlineAfter > .zero, isQuestionDue(host, now: now) else { return }
        mdnsHosts.noteAsked(hostName: hostName, at: now)
        outbox.add(
            HostQuestion(hostName: hostName, addresses: device.addresses, interfaces: device.interfaces)
        )
    }

    /// Why a device with these addresses is offline, if it goes offline now: what was asked and not answered — the
    /// kernel's probes of the addresses it resolved (`arp` for IPv4, `ndp` for IPv6) and the last question for `host`
    /// if it stands (`mdns`) —, or, with none of those, its records went (`withdrawn`).
    func offlineReason(addresses: Set<String>, asked host: MDNSHost?) -> PresenceReason {
        let mdns = host?.askedAt.map { asked in (host?.answeredAt).map { $0 < asked } ?? true } ?? false
        let means = addressBook.resolvingMeans(of: addresses) + (mdns ? ["mdns"] : [])
        return means.isEmpty ? PresenceReason(.withdrawn) : PresenceReason(.unanswered, means)
    }

    /// What answers for `macs` now: `arp` if one of their IPv4 entries does, `ndp` if an IPv6 one does; `mdns` if
    /// none does (its records, or an answer to a question, keep it online).
    func answeringMeans(of macs: Set<String>, now: Duration) -> [String] {
        let means = addressBook.answeringMeans(of: macs, now: now)
        return means.isEmpty ? ["mdns"] : means
    }
}
