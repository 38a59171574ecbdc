// Shared by the test files: a silent logger, builders of service instances, neighbours, mDNS devices and store inputs,
// a fake discovery source, a bounded wait, stream collection, a store replayer for subscribers, a temporary directory
// and a seeded generator.

import AsyncPrimitives
import Diffable
import Discovery
import Foundation
import Logging
import NIOConcurrencyHelpers
import NetworkInterfaces
import PeerScanModel
import TestSupport
import Testing

@testable import PeerScanCore

/// A logger that drops everything.

// MARK: - Instances and inputs

/// The key of the instance of service `name` (of `type` in `local`) seen on `interface` over `ipProtocol`.
func makeInstanceKey(
    _ name: String,
    type: String = "_http._tcp",
    interface: String = "eth0",
    ipProtocol: IPProtocol = .ipv4
) -> ServiceInstanceKey {
    ServiceInstanceKey(interface: interface, ipProtocol: ipProtocol, name: name, type: type, domain: "local")
}

/// A resolved instance of service `name` (of `type` in `local`) on `host`, seen on `interface` over `ipProtocol`.
func makeInstance(
    _ name: String,
    type: String = "_http._tcp",
    host: String,
    interface: String = "eth0",
    ipProtocol: IPProtocol = .ipv4,
    addresses: [String] = [],
    port: UInt16 = 80,
    txt: [TXTEntry] = []
) -> ServiceInstance {
    ServiceInstance(
        key: makeInstanceKey(name, type: type, interface: interface, ipProtocol: ipProtocol),
        hostName: host,
        addresses: addresses,
        port: port,
        txt: txt
    )
}

/// A neighbour-table entry: `address` at `mac` on `interface`, in `state`, last confirmed at `confirmed`.
func makeNeighbour(
    _ address: String,
    _ mac: String?,
    _ state: Neighbour.State = .reachable,
    confirmed: Duration? = nil,
    interface: String = "lan0"
) -> Neighbour {
    Neighbour(address: address, interface: interface, macAddress: mac, state: state, lastConfirmed: confirmed)
}

/// The discovery event that the neighbour table has this entry (by default on `eth0`, the stores' interface).
func makeNeighbourInput(
    _ address: String,
    _ mac: String?,
    _ state: Neighbour.State = .reachable,
    confirmed: Duration? = nil,
    interface: String = "eth0"
) -> StoreInput {
    .discovery(
        .neighbour(.neighbourUpdated(makeNeighbour(address, mac, state, confirmed: confirmed, interface: interface)))
    )
}

/// The mDNS host `hostName` as its records announce it on `lan0`, with one service: by default an `_http._tcp` service
/// on port 80 named after the host. Its display name is the host name unless `displayName` says otherwise.
func makeMDNSHost(
    _ hostName: String,
    addresses: [String],
    displayName: String? = nil,
    service: DeviceService? = nil
) -> AnnouncedHost {
    AnnouncedHost(
        hostName: hostName,
        displayName: displayName ?? hostName,
        addresses: addresses,
        interfaces: ["lan0"],
        services: [
            service ?? DeviceService(name: hostName, type: "_http._tcp", domain: "local", port: 80, txt: [])
        ]
    )
}

extension Device {
    /// The device of an mDNS host as it announced itself (an identifier from its host name, nothing more), for the
    /// log lines' tests.
    init(_ host: AnnouncedHost) {
        self.init(
            id: DeviceID.make(hostName: host.hostName),
            hostName: host.hostName,
            displayName: host.displayName,
            addresses: host.addresses,
            interfaces: host.interfaces,
            services: host.services
        )
    }
}

extension TXTEntry {
    /// `key=value`, or a bare `key` when `value` is `nil`.
    init(_ key: String, _ value: String?) {
        self.init(key: key, value: value)
    }
}

extension StoreInput {
    /// The discovery event `.serviceResolved(instance)`.
    static func resolved(_ instance: ServiceInstance) -> StoreInput { .discovery(.mdns(.serviceResolved(instance))) }

    /// The discovery event `.serviceRemoved(key)`.
    static func removed(_ key: ServiceInstanceKey) -> StoreInput { .discovery(.mdns(.serviceRemoved(key))) }

    /// The discovery event `.sourceState(state, hostName: hostName)`.
    static func source(_ state: SourceState, hostName: String? = nil) -> StoreInput {
        .discovery(.mdns(.sourceState(state, hostName: hostName)))
    }

    /// The discovery event `.browsingSettled`.
    static var browsingSettled: StoreInput { .discovery(.mdns(.browsingSettled)) }

    /// The discovery event `.typeSettled(type)`: the browser of that service type has reported everything.
    static func typeSettled(_ type: String) -> StoreInput { .discovery(.mdns(.typeSettled(type))) }

    /// Switches scanning without asking for the sequence.
    static func setScanning(_ enabled: Bool) -> StoreInput { .setScanning(enabled, reply: nil) }
}

// MARK: - Stores and snapshots

/// A store that logs nothing.
func makeStore(isScanning: Bool = true, interfaces: [String] = []) -> SnapshotStore {
    SnapshotStore(isScanning: isScanning, interfaces: interfaces)
}

extension Snapshot where SectionID == ScanSection, Item == ScanItem {
    /// The devices of the `networks` section, in order; empty without the section.
    var devices: [Device] { (items(inSection: .networks) ?? []).compactMap(\.device) }

    /// The status the `host` item shows.
    var hostStatus: HostStatus? {
        if case .host(let status)? = item(withIdentifier: DeviceID.host) { return status }
        return nil
    }

    /// The device with this host name, if it is in the snapshot.
    func device(hostName: String) -> Device? {
        item(withIdentifier: DeviceID.make(hostName: hostName))?.device
    }
}

/// What one batch did to a store: the effects it asked for and the updates it published.
struct BatchOutcome {
    var effects: StoreEffects
    var updates: [StoreUpdate]

    /// The changeset of the batch's one update; `nil` if it published none (or, wrongly, several).
    var changes: ScanChangeset? { updates.count == 1 ? updates[0].changes : nil }
}

/// Applies one batch to a store and returns what it did. Ends the store's subscriptions, to collect the updates.
func applyBatch(_ inputs: [StoreInput], to store: SnapshotStore) async throws -> BatchOutcome {
    let subscription = await store.subscribe()
    let effects = await store.apply(inputs)
    await store.finishSubscriptions()
    let updates = try #require(await collect(subscription.updates), "the subscription ended")
    return BatchOutcome(effects: effects, updates: updates)
}

/// Whether devices are in the store's order: by display name, then by identifier.
func isSortedForDisplay(_ devices: [Device]) -> Bool {
    zip(devices, devices.dropFirst()).allSatisfy {
        $0.sortKey < $1.sortKey
    }
}

/// A subscriber's view of the store: its starting point, with every update replayed on it in order.
struct ReplayingSubscriber {
    private(set) var snapshot: ScanSnapshot
    private(set) var sequence: UInt64

    init(_ subscription: Subscription) {
        snapshot = subscription.snapshot
        sequence = subscription.sequence
    }

    /// A sequence number that does not follow the last one.
    struct SequenceGap: Error, CustomStringConvertible {
        var expected: UInt64
        var received: UInt64
        var description: String { "expected update \(expected), received \(received)" }
    }

    /// Replays an update; throws if it does not follow the last one or does not apply.
    mutating func replay(_ update: StoreUpdate) throws {
        guard update.sequence == sequence + 1 else {
            throw SequenceGap(expected: sequence + 1, received: update.sequence)
        }
        snapshot = try snapshot.applying(update.changes)
        sequence = update.sequence
    }
}

// MARK: - Concurrency

/// A value set from another task or a callback.
final class Box<Value: Sendable>: Sendable {
    private let storage: NIOLockedValueBox<Value>

    init(_ value: Value) { storage = NIOLockedValueBox(value) }

    var value: Value {
        get { storage.withLockedValue { $0 } }
        set { storage.withLockedValue { $0 = newValue } }
    }
}

// MARK: - A fake discovery source

/// A discovery source the test drives: ``send(_:)`` delivers events, ``browsingCalls`` records ``setBrowsing(_:)``.
/// Like Avahi's, its ``run()`` returns when its task is cancelled.
final class FakeDiscoverySource: DiscoverySource {
    let events: AsyncStream<DiscoveryEvent>
    private let continuation: AsyncStream<DiscoveryEvent>.Continuation
    private let calls = NIOLockedValueBox<[Bool]>([])
    private let asked = NIOLockedValueBox<[HostQuestion]>([])

    init() {
        (events, continuation) = AsyncStream.makeStream()
    }

    /// The arguments of every ``setBrowsing(_:)`` call, in order.
    var browsingCalls: [Bool] { calls.withLockedValue { $0 } }

    /// Every question asked, in order.
    var questions: [HostQuestion] { asked.withLockedValue { $0 } }

    func ask(_ question: HostQuestion) {
        asked.withLockedValue { $0.append(question) }
    }

    /// Delivers events, in order.
    func send(_ events: DiscoveryEvent...) {
        for event in events { continuation.yield(event) }
    }

    func run() async throws {
        let (waiting, cancelled) = AsyncStream<Never>.makeStream()
        await withTaskCancellationHandler {
            for await _ in waiting {}
        } onCancel: {
            cancelled.finish()
        }
    }

    func setBrowsing(_ enabled: Bool) {
        calls.withLockedValue { $0.append(enabled) }
    }
}
