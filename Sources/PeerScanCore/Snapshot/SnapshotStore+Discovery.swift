// How a discovery event reaches the store's parts: each source's events go to the parts that source feeds — the mDNS
// source's state, interfaces, rows and records to the resync schedule, the initial browse's gate and the mDNS host
// table; neighbours and Bluetooth to the device table; Wi-Fi to the wireless table.

import Discovery
import MonitoringLog
import PeerScanModel

extension SnapshotStore {
    /// Hands a discovery event to the parts of the store its source feeds. `isScanning` is the switch as the batch
    /// began.
    func apply(_ event: DiscoveryEvent, isScanning: Bool, effects: inout StoreEffects) {
        switch event {
        case .mdns(let event):
            apply(mdns: event, isScanning: isScanning, effects: &effects)
        case .neighbour(let observation):
            if isScanning {
                devices.observe(observation, interfaces: host.interfaces, now: clock.now())
                if observation.hasAnswer { gate.noteNeighbourAnswer(now: clock.now()) }
            }
            limits.countsChanged = true
        case .wireless(let observation):
            if isScanning { wireless.apply(observation, now: clock.now()) }
        case .bluetooth(let observation):
            if isScanning { devices.observe(bluetooth: observation, now: clock.now()) }
        }
    }

    /// Hands an event of the mDNS source to its part: the source's state and the resync schedule, the browsed
    /// interfaces and their withdrawals, the initial browse's gate, and the mDNS host table (while scanning).
    private func apply(mdns event: MDNSEvent, isScanning: Bool, effects: inout StoreEffects) {
        switch event {
        case .sourceState(let state, let hostName):
            sourceStateKnown.fire()
            switch state {
            case .running: gate.sourceRunning()
            case .connecting, .unavailable, .failure: gate.sourceDown(now: clock.now())  // no daemon to browse
            case .registering, .collision: break  // the daemon is there: its browse follows
            }
            if state != host.sourceState {
                effects.logs.append(LogEntry(.mdnsSourceState, ["state": state.name, "reason": state.reason ?? ""]))
            }
            schedule.sourceStateChanged(
                isRunning: state.isRunning,
                wasRunning: host.sourceState.isRunning,
                table: &table,
                effects: &effects
            )
            host.sourceState = state
            if let hostName { host.hostName = hostName }
        case .browsedInterfaces(let interfaces):
            if interfaces != host.interfaces {
                effects.logs.append(LogEntry(.interfacesChanged, ["interfaces": interfaces.joined(separator: ",")]))
                host.interfaces = interfaces
            }
        case .interfaceWithdrawn(let interface):
            if isScanning { schedule.interfaceWithdrawn(interface, table: &table, effects: &effects) }
        case .interfaceReturned(let interface):
            if isScanning { schedule.interfaceReturned(interface, table: &table, effects: &effects) }
        case .browsingSettled:
            gate.browsingSettled(isRunning: host.sourceState.isRunning, isScanning: isScanning)
            if host.sourceState.isRunning { schedule.browsingSettled(table: &table, effects: &effects) }
        case .serviceFound, .serviceResolved, .serviceRemoved, .resolveFailed, .typeSettled, .addressAdded,
            .addressRemoved, .followingAddresses, .addressesKnown:
            guard isScanning else { break }
            table.apply(event)
            limits.countsChanged = true
            switch event {
            case .serviceFound, .serviceResolved, .addressAdded: gate.noteFound(now: clock.now())
            default: break
            }
        }
    }
}

extension NeighbourObservation {
    /// Whether the kernel resolved an address to a MAC address in it (an entry of a host that answered).
    fileprivate var hasAnswer: Bool {
        switch self {
        case .neighbourTable(let entries): entries.contains { $0.macAddress != nil }
        case .neighbourUpdated(let entry): entry.macAddress != nil
        case .neighbourRemoved, .hostAnswered: false
        }
    }
}
