// io.peerscan.varlink against the Swift wire types: every method's parameters and reply, and every error, encoded from
// a fully populated value, must have exactly the declared fields, with values of the declared types (names,
// optionality, kinds, enum values, nested types) — and together the samples must use every declared field.

import Diffable
import Foundation
import PeerScanModel
import TestSupport
import Testing

/// A method's parameters or reply without fields.
private struct NoFields: Encodable {}

/// What every method sends and receives, fully populated: parameters, then the replies it can make.
private func samples() throws -> [String: (parameters: [any Encodable], replies: [any Encodable])] {
    let snapshot = try WireSamples.snapshot()
    let device = ScanItem.device(WireSamples.device())
    let known = WireSamples.knownDevice()
    return [
        "GetSnapshot": ([NoFields()], [PeerScanWire.SnapshotReply(epoch: "e", sequence: 7, snapshot: snapshot)]),
        "Monitor": (
            [PeerScanWire.MonitorParameters(epoch: "e", since: 6)],
            [
                PeerScanWire.MonitorReply(epoch: "e", sequence: 7, snapshot: snapshot, resync: true),
                PeerScanWire.MonitorReply(epoch: "e", sequence: 8, changes: WireSamples.changesetOfEveryKind()),
            ]
        ),
        "SetScanning": (
            [PeerScanWire.SetScanningParameters(enabled: true)], [PeerScanWire.SetScanningReply(sequence: 9)]
        ),
        "GetDevice": (
            [PeerScanWire.DeviceParameters(id: device.id.description)],
            [
                PeerScanWire.GetDeviceReply(
                    device: device,
                    history: known,
                    transitions: [
                        PeerScanWire.Transition(at: "2026-11-24T09:30:00Z", online: true, reason: "answered via=arp"),
                        PeerScanWire.Transition(at: "2026-11-24T10:30:00Z", online: false, reason: nil),
                    ]
                )
            ]
        ),
        "ListKnownDevices": ([NoFields()], [PeerScanWire.ListKnownDevicesReply(devices: [known])]),
        "GetStatistics": (
            [NoFields()],
            [
                PeerScanWire.StatisticsReply(
                    probeRoundDurations: PeerScanWire.Histogram(
                        bounds: [0.5, 1],
                        counts: [1, 2],
                        sum: 1.25,
                        count: 3
                    ),
                    addressConflicts: 2,
                    evilTwinWarnings: 1,
                    clients: PeerScanWire.ClientCounts(varlink: 4, mqtt: true),
                    process: PeerScanWire.ProcessStatistics(
                        residentBytes: 1 << 20,
                        cpuSeconds: 0.5,
                        openDescriptors: 9,
                        maximumDescriptors: 1024,
                        startTime: 1_764_000_000.25
                    ),
                    alerts: [
                        PeerScanWire.AlertOutcomeCount(destination: "ntfy://ntfy.sh/home", outcome: "sent", count: 2)
                    ]
                ),
                PeerScanWire.StatisticsReply(
                    probeRoundDurations: nil,
                    addressConflicts: 0,
                    evilTwinWarnings: 0,
                    clients: PeerScanWire.ClientCounts(varlink: 1, mqtt: nil),
                    process: nil
                ),
            ]
        ),
        "SetDeviceLabel": (
            [PeerScanWire.SetDeviceLabelParameters(id: device.id.description, name: "TV", note: "n", important: true)],
            [PeerScanWire.SetDeviceLabelReply(DeviceLabel(name: "TV", note: "n", isImportant: true))]
        ),
        "MergeDevices": (
            [PeerScanWire.MergeDevicesParameters(id: device.id.description, others: [DeviceID.host.description])],
            [PeerScanWire.MergeDevicesReply()]
        ),
        "SplitDevice": (
            [PeerScanWire.SplitDeviceParameters(id: device.id.description, key: "mac:00:00:0c:00:00:01")],
            [PeerScanWire.SplitDeviceReply(id: DeviceID.host.description)]
        ),
        "SetDeviceIRK": (
            [
                PeerScanWire.SetDeviceIRKParameters(id: device.id.description, irk: "ec0234a357c8ad05341010a60a397d9b"),
                PeerScanWire.SetDeviceIRKParameters(id: device.id.description, irk: nil),
            ],
            [PeerScanWire.SetDeviceIRKReply()]
        ),
        "ForgetDevice": (
            [PeerScanWire.DeviceParameters(id: device.id.description)], [PeerScanWire.ForgetDeviceReply()]
        ),
        "ListKnownWiFiNetworks": ([NoFields()], [PeerScanWire.KnownWiFiNetworksReply(networks: [knownWiFi])]),
        "TrustWiFiNetwork": (
            [PeerScanWire.TrustWiFiNetworkParameters(ssid: "home", security: "wpa2-personal")],
            [PeerScanWire.KnownWiFiNetworksReply(networks: [knownWiFi])]
        ),
        "UntrustWiFiNetwork": (
            [PeerScanWire.UntrustWiFiNetworkParameters(ssid: "home")], [PeerScanWire.UntrustWiFiNetworkReply()]
        ),
        "FollowAlerts": (
            [PeerScanWire.FollowAlertsParameters(destinations: ["ntfys://ntfy.example/alerts"])],
            [PeerScanWire.FollowAlertsReply(destination: "ntfys://ntfy.example/alerts", alert: alertSample)]
        ),
        "AckAlert": (
            [
                PeerScanWire.AckAlertParameters(
                    id: alertSample.id,
                    destination: "json://hook/",
                    outcome: "sent",
                    answer: "200 OK"
                )
            ],
            [PeerScanWire.EmptyReply()]
        ),
        "SendTestAlert": (
            [PeerScanWire.SendTestAlertParameters(destination: "json://hook/", timeout: 5)],
            [
                PeerScanWire.SendTestAlertReply(results: [
                    .init(destination: "json://hook/", outcome: "sent", answer: "200 OK")
                ])
            ]
        ),
        "SetAlertRule": (
            [PeerScanWire.SetAlertRuleParameters(device: device.id.description, events: ["offline", "online"])],
            [PeerScanWire.EmptyReply()]
        ),
        "ListAlertRules": (
            [NoFields()],
            [PeerScanWire.ListAlertRulesReply(rules: [.init(AlertRule(device: DeviceID.host, events: [.offline]))])]
        ),
    ]
}

/// An alert, every field set.
private let alertSample = PeerScanWire.Alert(
    Alert(
        id: UUID(uuidString: "6f1c0d2e-4b7a-4c1e-9f00-0123456789ab")!,
        event: .offline,
        created: Date(timeIntervalSince1970: 1_800_000_000.25),
        device: DeviceID.host,
        title: "nas is offline",
        message: "nas stopped answering (unanswered asked=arp).",
        priority: .high,
        tags: ["red_circle"],
        link: "/devices/\(DeviceID.host)",
        fields: ["name": "nas"]
    )
)

/// A known Wi-Fi network, every field set.
private let knownWiFi = PeerScanWire.KnownWiFiNetwork(
    KnownWiFiNetwork(
        id: DeviceID.host,
        ssid: "home",
        security: .wpa2Personal,
        bssids: ["02:00:00:00:01:00"],
        isConnected: true,
        isTrusted: true
    )
)

private let errorSamples: [PeerScanWire.ErrorReply] = [
    .permissionDenied(reason: "forgetting devices needs root"),
    .deviceNotFound(id: DeviceID.host),
    .cannotMerge(reason: "two mDNS hosts"),
    .cannotSplit(reason: "its only key"),
    .invalidIRK(reason: "not 32 hex digits"),
    .wifiNetworkNotFound(ssid: "home", reason: "no Wi-Fi network \"home\" is listed now"),
    .noAlertSender(reason: "no sender follows the alerts"),
    .alertSenderReplaced,
    .unknownDestination("json://hook/"),
]

@Suite struct InterfaceDefinitionConformanceTests {
    let interface: IDLInterface

    init() throws { interface = try IDLInterface(parsing: PeerScanWire.definition) }

    @Test func everyMethodsParametersAndRepliesAreTheDeclaredFields() throws {
        let samples = try samples()
        #expect(Set(interface.methods.keys) == Set(samples.keys), "a method without samples, or a sample too many")
        var checker = Checker(types: interface.types)
        let encoder = PeerScanWire.makeJSONEncoder()
        for (name, method) in interface.methods.sorted(by: { $0.key < $1.key }) {
            let sample = try #require(samples[name])
            for parameters in sample.parameters {
                let json = try JSONDecoder().decode(JSON.self, from: encoder.encode(parameters))
                checker.check(json, .structure(method.parameters), at: "\(name)()")
            }
            for reply in sample.replies {
                let json = try JSONDecoder().decode(JSON.self, from: encoder.encode(reply))
                checker.check(json, .structure(method.reply), at: "\(name)->")
            }
        }
        #expect(checker.problems == [])
        var declared: Set<String> = []
        for (name, method) in interface.methods {
            declared.formUnion(method.parameters.map { "\(name)().\($0.name)" })
            declared.formUnion(method.reply.map { "\(name)->.\($0.name)" })
        }
        for (name, type) in interface.types {
            if case .structure(let fields) = type { declared.formUnion(fields.map { "\(name).\($0.name)" }) }
        }
        #expect(declared.subtracting(checker.used).sorted() == [], "declared fields no sample encodes")
    }

    @Test func everyErrorHasTheDeclaredParameters() throws {
        let prefix = PeerScanWire.interfaceName + "."
        #expect(Set(errorSamples.map(\.name)) == Set(interface.errors.keys.map { prefix + $0 }))
        var checker = Checker(types: interface.types)
        for error in errorSamples {
            let name = String(error.name.dropFirst(prefix.count))
            let fields = try #require(interface.errors[name], "\(error.name) is not declared")
            checker.check(.object(error.parameters.mapValues(JSON.string)), .structure(fields), at: name)
        }
        #expect(checker.problems == [])
        #expect(
            checker.used == [
                "PermissionDenied.reason", "DeviceNotFound.id", "CannotMerge.reason", "CannotSplit.reason",
                "InvalidIRK.reason", "WiFiNetworkNotFound.ssid", "WiFiNetworkNotFound.reason",
                "NoAlertSender.reason", "UnknownDestination.destination",
            ]
        )
    }

    /// The checker itself finds what it must: an undeclared field, a missing one, a wrong kind, a bad enum value.
    @Test func theCheckerReportsEveryKindOfMismatch() {
        var checker = Checker(types: ["E": .enumeration(["a", "b"])])
        let declared = IDLType.structure([
            IDLField(name: "n", type: .int), IDLField(name: "s", type: .string), IDLField(name: "e", type: .named("E")),
            IDLField(name: "o", type: .optional(.array(.bool))),
        ])
        checker.check(
            .object(["n": .string("1"), "e": .string("c"), "o": .array([.int(1)]), "x": .null]),
            declared,
            at: "T"
        )
        #expect(
            Set(checker.problems) == [
                "T.n: int expected, got string(\"1\")", "T.s: missing", "T.e: \"c\" is not one of (a, b)",
                "T.o[]: bool expected, got int(1)", "T.x: not declared",
            ]
        )
    }
}

/// Checks JSON values against declared types, and remembers which struct fields it saw.
private struct Checker {
    var types: [String: IDLType]
    var problems: [String] = []
    /// `Type.field` for fields of named types, `Method().field` / `Method->.field` / `Error.field` for the others.
    var used: Set<String> = []

    mutating func check(_ value: JSON?, _ type: IDLType, at path: String, owner: String? = nil) {
        if case .optional(let wrapped) = type {
            if value == nil || value == .null { return }
            return check(value, wrapped, at: path, owner: owner)
        }
        guard let value, value != .null else { return problems.append("\(path): missing") }
        switch (type, value) {
        case (.bool, .bool), (.int, .int), (.float, .int), (.float, .float), (.string, .string), (.object, .object):
            return
        case (.object, .bool):
            return  // `connected`: an object on a wifiInterface item, a bool on a wifiNetwork (Varlink has no union)
        case (.named(let name), _):
            guard let declared = types[name] else { return problems.append("\(path): type \(name) not declared") }
            check(value, declared, at: path, owner: name)
        case (.array(let element), .array(let values)):
            for item in values { check(item, element, at: path + "[]") }
        case (.dictionary(let element), .object(let values)):
            for item in values.values { check(item, element, at: path + "[]") }
        case (.enumeration(let cases), .string(let text)):
            if !cases.contains(text) { problems.append("\(path): \"\(text)\" is not one of \(type)") }
        case (.structure(let fields), .object(let object)):
            for key in object.keys where !fields.contains(where: { $0.name == key }) {
                problems.append("\(path).\(key): not declared")
            }
            for field in fields {
                if let fieldValue = object[field.name], fieldValue != .null {
                    used.insert("\(owner ?? path).\(field.name)")
                }
                check(object[field.name], field.type, at: "\(path).\(field.name)")
            }
        default:
            problems.append("\(path): \(type) expected, got \(value)")
        }
    }
}
