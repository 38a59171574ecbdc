// The registry keeps each device's presence transitions, with their reasons, across a reopen, within their
// retention.

import Foundation
import PeerScanCore
import PeerScanModel
import TestSupport
import Testing

@testable import DeviceRegistry

private let t0 = Date(timeIntervalSince1970: 1_790_000_000)
private let plug = DeviceID.make(macAddress: "00:00:0c:00:00:01")

private func plugRecords(online: Bool, reason: PresenceReason) -> DeviceRecords {
    DeviceRecords(
        devices: [
            Device(
                id: plug,
                hostName: nil,
                displayName: nil,
                addresses: ["192.0.2.20"],
                interfaces: ["eth0"],
                services: [],
                macAddresses: ["00:00:0c:00:00:01"],
                online: online,
                presenceReason: reason
            )
        ]
    )
}

@Suite struct PresenceTimelineTests {
    @Test func `transitions are kept with their reasons across a reopen, and a change that is not one adds none`()
        async throws
    {
        try await withTemporaryDirectory { directory in
            let path = directory + "/registry.sqlite"
            let registry = DeviceRegistry(path: path, forgetAfter: .seconds(86400 * 60), now: t0, logger: .silent)
            let answered = PresenceReason(.answered, ["arp"])
            let unanswered = PresenceReason(.unanswered, ["arp"])
            registry.record(plugRecords(online: true, reason: answered), at: t0)
            registry.record(plugRecords(online: true, reason: answered), at: t0 + 5)  // an address changed, say
            registry.record(plugRecords(online: false, reason: unanswered), at: t0 + 60)
            #expect(await registry.flush(now: t0 + 60))
            registry.record(plugRecords(online: true, reason: answered), at: t0 + 120)
            #expect(await registry.flush(now: t0 + 120))

            let reopened = DeviceRegistry(path: path, forgetAfter: .seconds(86400 * 60), now: t0, logger: .silent)
            let known = try #require(reopened.device(plug, now: t0 + 130))
            #expect(
                known.transitions == [
                    PresenceTransition(at: t0, online: true, reason: answered),
                    PresenceTransition(at: t0 + 60, online: false, reason: unanswered),
                    PresenceTransition(at: t0 + 120, online: true, reason: answered),
                ]
            )
            #expect(reopened.knownDevices(now: t0 + 130).first?.transitions == [], "not in the list of every device")
        }
    }

    @Test func `a merge keeps every transition of the merged device across a reopen`() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory + "/registry.sqlite"
            let registry = DeviceRegistry(path: path, forgetAfter: .seconds(86400 * 60), now: t0, logger: .silent)
            let answered = PresenceReason(.answered, ["arp"])
            let unanswered = PresenceReason(.unanswered, ["arp"])
            let count = RegistryDatabase.transitionsWrittenPerBatch * 3
            for index in 0..<count {
                let online = index % 2 == 0
                registry.record(
                    plugRecords(online: online, reason: online ? answered : unanswered),
                    at: t0 + Double(index)
                )
                #expect(await registry.flush(now: t0 + Double(index)))
            }
            let printer = DeviceID.make(hostName: "printer.local")
            registry.record(
                DeviceRecords(
                    identityChanges: [.bound(.hostName("printer.local"), printer)],
                    devices: [
                        Device(
                            id: printer,
                            hostName: "printer.local",
                            displayName: "printer",
                            addresses: ["192.0.2.10"],
                            interfaces: ["eth0"],
                            services: [],
                            online: true,
                            presenceReason: answered
                        )
                    ]
                ),
                at: t0 + 1000
            )
            #expect(await registry.flush(now: t0 + 1000))
            registry.record(
                DeviceRecords(identityChanges: [.merged(plug, into: printer)], departed: [plug]),
                at: t0 + 1001
            )
            #expect(await registry.flush(now: t0 + 1001))
            let merged = try #require(registry.device(printer, now: t0 + 1002)).transitions
            #expect(merged.count == count + 1)

            let reopened = DeviceRegistry(path: path, forgetAfter: .seconds(86400 * 60), now: t0, logger: .silent)
            let known = try #require(reopened.device(printer, now: t0 + 1002))
            #expect(known.transitions == merged)
        }
    }

    @Test func `a merge keeps the transitions within the one retention every device has`() {
        var survivor = DeviceHistory(id: plug, seen: SeenSpan(at: t0))
        var other = DeviceHistory(id: DeviceID.make(hostName: "printer.local"), seen: SeenSpan(at: t0))
        for index in 0..<PresenceTransition.retention.count {
            survivor.note(PresenceTransition(at: t0 + Double(2 * index), online: index % 2 == 0, reason: nil))
            other.note(PresenceTransition(at: t0 + Double(2 * index + 1), online: index % 2 == 0, reason: nil))
        }
        survivor.absorb(other)
        #expect(survivor.transitions.count == PresenceTransition.retention.count)
        #expect(survivor.transitions.first?.at == t0 + Double(PresenceTransition.retention.count), "the oldest go")
    }

    @Test func `transitions older than the retention, or beyond its count, are dropped`() {
        var history = DeviceHistory(id: plug, seen: SeenSpan(at: t0))
        for index in 0..<(PresenceTransition.retention.count + 10) {
            history.note(PresenceTransition(at: t0 + Double(index), online: index % 2 == 0, reason: nil))
        }
        #expect(history.transitions.count == PresenceTransition.retention.count)
        #expect(history.transitions.first?.at == t0 + 10)
        history.note(PresenceTransition(at: t0 + PresenceTransition.retention.age + 500, online: true, reason: nil))
        #expect(history.transitions.allSatisfy { $0.at >= t0 + 500 }, "none older than 30 days before the last")
    }
}
