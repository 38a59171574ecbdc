import Diffable
import PeerScanCore
import PeerScanModel
import Testing

@testable import PeerScanClient

@Suite("Change descriptions")
struct ChangeDescriptionTests {
    let printer = makeDevice(
        "printer.local",
        name: "Office Printer",
        addresses: ["10.0.0.20"],
        services: [makeService("_ipp._tcp", name: "Office Printer", port: 631)]
    )

    @Test("a device that appears is one + line with its name, host, addresses and service types")
    func added() {
        let old = makeSnapshot(devices: [printer])
        let new = makeSnapshot(devices: [printer, makeTV()])
        #expect(describe(from: old, to: new) == ["+ Living Room TV (tv.local) 10.0.0.7 _airplay._tcp,_raop._tcp"])
    }

    @Test("a device that goes away is one - line")
    func removed() {
        let old = makeSnapshot(devices: [printer, makeTV()])
        let new = makeSnapshot(devices: [makeTV()])
        #expect(describe(from: old, to: new) == ["- Office Printer (printer.local) 10.0.0.20 _ipp._tcp"])
    }

    @Test("a device without addresses says so; a type offered twice is listed once")
    func summaryEdgeCases() {
        let device = makeDevice(
            "nas.local",
            name: "NAS",
            services: [makeService("_http._tcp", name: "NAS"), makeService("_http._tcp", name: "NAS admin")]
        )
        #expect(
            describe(from: makeSnapshot(), to: makeSnapshot(devices: [device])) == [
                "+ NAS (nas.local) (no address) _http._tcp"
            ]
        )
    }

    @Test("a service added and a service removed")
    func serviceAddedAndRemoved() {
        let ssh = makeService("_ssh._tcp", name: "Living Room TV", port: 22)
        let withSSH = makeTV(services: makeTV().services + [ssh])
        #expect(
            describe(from: makeSnapshot(devices: [makeTV()]), to: makeSnapshot(devices: [withSSH])) == [
                "~ Living Room TV: + _ssh._tcp"
            ]
        )
        #expect(
            describe(from: makeSnapshot(devices: [withSSH]), to: makeSnapshot(devices: [makeTV()])) == [
                "~ Living Room TV: - _ssh._tcp"
            ]
        )
    }

    @Test("a service of a type the device offers twice is named")
    func ambiguousServiceType() {
        let web = makeService("_http._tcp", name: "Web", port: 80)
        let admin = makeService("_http._tcp", name: "Admin", port: 8080)
        let old = makeSnapshot(devices: [makeDevice("nas.local", name: "NAS", services: [web])])
        let new = makeSnapshot(devices: [makeDevice("nas.local", name: "NAS", services: [web, admin])])
        #expect(describe(from: old, to: new) == [#"~ NAS: + _http._tcp "Admin""#])
    }

    @Test("addresses that are new and gone")
    func addresses() {
        let old = makeSnapshot(devices: [makeTV(addresses: ["10.0.0.7", "fd00::7"])])
        let new = makeSnapshot(devices: [makeTV(addresses: ["10.0.0.8", "fd00::7"])])
        #expect(describe(from: old, to: new) == ["~ Living Room TV: address 10.0.0.8 new, address 10.0.0.7 gone"])
    }

    @Test("interfaces that are new and gone")
    func interfaces() {
        var moved = makeTV()
        moved.interfaces = ["wlan0"]
        #expect(
            describe(from: makeSnapshot(devices: [makeTV()]), to: makeSnapshot(devices: [moved]))
                == ["~ Living Room TV: interface wlan0 new, interface lan0 gone"]
        )
    }

    @Test("a TXT value that changed, a key added, a key removed, a key without a value")
    func txt() {
        let old = makeTV(services: [makeService("_airplay._tcp", name: "Living Room TV", txt: [("model", "X1")])])
        let new = makeTV(services: [makeService("_airplay._tcp", name: "Living Room TV", txt: [("model", "X2")])])
        #expect(
            describe(from: makeSnapshot(devices: [old]), to: makeSnapshot(devices: [new]))
                == ["~ Living Room TV: _airplay._tcp txt model=X1→X2"]
        )
        #expect(
            ChangeDescription.txtChanges(
                from: [TXTEntry(key: "color", value: "F"), TXTEntry(key: "rp", value: "ipp/print")],
                to: [TXTEntry(key: "color", value: "T"), TXTEntry(key: "duplex", value: nil)]
            ) == "color=F→T +duplex -rp"
        )
        #expect(
            ChangeDescription.txtChanges(
                from: [TXTEntry(key: "duplex", value: nil)],
                to: [TXTEntry(key: "duplex", value: "T")]
            )
                == "duplex→duplex=T"
        )
    }

    @Test("a port change names the service")
    func port() {
        let old = makeTV(services: [makeService("_http._tcp", name: "Living Room TV", port: 80)])
        let new = makeTV(services: [makeService("_http._tcp", name: "Living Room TV", port: 8080)])
        #expect(
            describe(from: makeSnapshot(devices: [old]), to: makeSnapshot(devices: [new]))
                == ["~ Living Room TV: _http._tcp port 80→8080"]
        )
    }

    @Test("several changes of one device are one line, in a fixed order")
    func severalChanges() {
        let old = makeTV(
            addresses: ["10.0.0.7", "10.0.0.8"],
            services: [
                makeService("_airplay._tcp", name: "Living Room TV", port: 7000, txt: [("model", "X1")]),
                makeService("_http._tcp", name: "Living Room TV", port: 80),
            ]
        )
        let new = makeTV(
            addresses: ["10.0.0.8"],
            services: [
                makeService("_airplay._tcp", name: "Living Room TV", port: 7000, txt: [("model", "X2")]),
                makeService("_http._tcp", name: "Living Room TV", port: 8080),
                makeService("_ssh._tcp", name: "Living Room TV", port: 22),
            ]
        )
        #expect(
            describe(from: makeSnapshot(devices: [old]), to: makeSnapshot(devices: [new])) == [
                "~ Living Room TV: + _ssh._tcp, address 10.0.0.7 gone, _airplay._tcp txt model=X1→X2, _http._tcp port 80→8080"
            ]
        )
    }

    @Test("a rename that moves the device in the list is one ~ line; the move prints nothing")
    func renameWithMove() throws {
        let alpha = makeDevice("alpha.local", name: "Alpha", services: [makeService("_ssh._tcp", name: "Alpha")])
        let bravo = makeDevice("bravo.local", name: "Bravo", services: [makeService("_ssh._tcp", name: "Bravo")])
        let charlie = makeDevice(
            "charlie.local",
            name: "Charlie",
            services: [makeService("_ssh._tcp", name: "Charlie")]
        )
        var zulu = alpha
        zulu.displayName = "Zulu"
        let old = makeSnapshot(devices: [alpha, bravo, charlie])
        let new = makeSnapshot(devices: [bravo, charlie, zulu])
        let changes = new.difference(from: old)
        #expect(changes.itemMoves.map(\.id) == [alpha.id])
        #expect(changes.itemUpdates.map(\.item.id) == [alpha.id])
        #expect(
            ChangeDescription.lines(for: changes, from: old, to: new).map(\.description) == ["~ Alpha: renamed to Zulu"]
        )
    }

    @Test("a label: the device renamed, marked important, one ~ line; the summary says important")
    func labelled() throws {
        let alpha = makeDevice("alpha.local", name: "Alpha", services: [makeService("_ssh._tcp", name: "Alpha")])
        let labelled = alpha.labelled(DeviceLabel(name: "Build server", isImportant: true))
        #expect(
            describe(from: makeSnapshot(devices: [alpha]), to: makeSnapshot(devices: [labelled]))
                == ["~ Alpha: renamed to Build server, important"]
        )
        #expect(ChangeDescription.summary(of: labelled).hasSuffix("_ssh._tcp important"))
        #expect(
            describe(from: makeSnapshot(devices: [labelled]), to: makeSnapshot(devices: [alpha]))
                == ["~ Build server: renamed to Alpha, not important"]
        )
    }

    @Test("a move alone prints nothing")
    func moveAlone() throws {
        let alpha = makeDevice("alpha.local", name: "Alpha", services: [makeService("_ssh._tcp", name: "Alpha")])
        let bravo = makeDevice("bravo.local", name: "Bravo", services: [makeService("_ssh._tcp", name: "Bravo")])
        let old = makeSnapshot(devices: [alpha, bravo])
        var new = old
        try new.moveItem(alpha.id, afterItem: bravo.id)
        #expect(ChangeDescription.lines(for: new.difference(from: old), from: old, to: new).isEmpty)
    }

    @Test("scanning switched off counts the devices no longer listed; switched on")
    func scanningSwitched() {
        let on = makeSnapshot(devices: [printer, makeTV()])
        let off = makeSnapshot(scanning: false)
        #expect(describe(from: on, to: off) == ["scanning switched off (2 devices no longer listed)"])
        #expect(describe(from: off, to: makeSnapshot()) == ["scanning switched on"])
        #expect(
            describe(from: makeSnapshot(devices: [printer]), to: off) == [
                "scanning switched off (1 device no longer listed)"
            ]
        )
    }

    @Test("Avahi's state, with its reason, and this host's name and interfaces")
    func avahiState() {
        let unavailable = HostStatus(
            hostName: "scanner.local",
            sourceState: .unavailable(reason: "Daemon not running"),
            interfaces: ["lan0"]
        )
        #expect(
            describe(from: makeSnapshot(), to: makeSnapshot(host: unavailable)) == [
                "avahi unavailable (Daemon not running)"
            ]
        )
        let connecting = HostStatus(hostName: "scanner.local", sourceState: .connecting, interfaces: ["lan0"])
        #expect(
            describe(from: makeSnapshot(host: unavailable), to: makeSnapshot(host: connecting)) == ["avahi connecting"]
        )
        let renamed = HostStatus(hostName: "scanner-2.local", sourceState: .running, interfaces: ["lan0", "lan1"])
        #expect(
            describe(from: makeSnapshot(), to: makeSnapshot(host: renamed))
                == ["this host: name scanner.local→scanner-2.local, interface lan1 new"]
        )
    }

    @Test("a system limit reached, its count moving, and no limit reached any more")
    func limits() {
        let table = { (value: Int) in
            SystemLimit(name: "neighbour-table ipv4", value: value, setting: "net.ipv4.neigh.default.gc_thresh3=1024")
        }
        let reached = HostStatus(
            hostName: "scanner.local",
            sourceState: .running,
            interfaces: ["lan0"],
            limits: [table(1024)]
        )
        var grown = reached
        grown.limits = [table(1030)]
        #expect(
            describe(from: makeSnapshot(), to: makeSnapshot(host: reached)) == [
                "limits neighbour-table ipv4 1024 (raise net.ipv4.neigh.default.gc_thresh3=1024)"
            ]
        )
        #expect(describe(from: makeSnapshot(host: reached), to: makeSnapshot(host: grown)) == [])
        #expect(describe(from: makeSnapshot(host: grown), to: makeSnapshot()) == ["limits none reached"])
    }

    @Test("configuration lines come first, then removals, then additions and changes in list order")
    func order() {
        let alpha = makeDevice("alpha.local", name: "Alpha", services: [makeService("_ssh._tcp", name: "Alpha")])
        var alphaMoved = alpha
        alphaMoved.addresses = ["10.0.0.1"]
        let zulu = makeDevice("zulu.local", name: "Zulu", services: [makeService("_ssh._tcp", name: "Zulu")])
        let connecting = HostStatus(hostName: "scanner.local", sourceState: .connecting, interfaces: ["lan0"])
        let old = makeSnapshot(devices: [zulu, printer])
        let new = makeSnapshot(host: connecting, devices: [alphaMoved, printer])
        #expect(
            describe(from: old, to: new) == [
                "avahi connecting",
                "- Zulu (zulu.local) (no address) _ssh._tcp",
                "+ Alpha (alpha.local) 10.0.0.1 _ssh._tcp",
            ]
        )
    }

    @Test("text published by devices is escaped")
    func escaping() {
        let evil = makeDevice(
            "evil.local",
            name: "Evil\u{1B}[2J\nTV",
            services: [makeService("_http._tcp", name: "Evil", txt: [("k", "a\u{9B}b")])]
        )
        #expect(
            describe(from: makeSnapshot(), to: makeSnapshot(devices: [evil])) == [
                #"+ Evil\e[2J\nTV (evil.local) (no address) _http._tcp"#
            ]
        )
        var changed = evil
        changed.services = [makeService("_http._tcp", name: "Evil", txt: [("k", "c")])]
        #expect(
            describe(from: makeSnapshot(devices: [evil]), to: makeSnapshot(devices: [changed]))
                == [#"~ Evil\e[2J\nTV: _http._tcp txt k=a\u{9b}b→c"#]
        )
    }

    @Test("signs and colours of the kinds of lines")
    func kinds() {
        #expect(ChangeLine(.added, "x").description == "+ x")
        #expect(ChangeLine(.removed, "x").description == "- x")
        #expect(ChangeLine(.changed, "x").description == "~ x")
        #expect(ChangeLine(.configuration, "scanning switched on").description == "scanning switched on")
        #expect(ChangeLine(.added, "x").colour == .green)
        #expect(ChangeLine(.removed, "x").colour == .red)
        #expect(ChangeLine(.changed, "x").colour == .yellow)
        #expect(ChangeLine(.configuration, "x").colour == nil)
    }

    @Test("a device known by its MAC address: named by it, with its vendor; offline and online again")
    func neighbourOnlyDevice() {
        var plug = Device(
            id: DeviceID.make(macAddress: "00:00:0c:12:34:56"),
            hostName: nil,
            displayName: nil,
            addresses: ["10.0.0.30"],
            interfaces: ["lan0"],
            services: [],
            macAddresses: ["00:00:0c:12:34:56"],
            vendor: "Cisco Systems, Inc"
        )
        #expect(
            describe(from: makeSnapshot(), to: makeSnapshot(devices: [plug]))
                == ["+ 00:00:0c:12:34:56 [Cisco Systems, Inc] 10.0.0.30"]
        )
        var offline = plug
        offline.online = false
        var why = offline
        why.presenceReason = PresenceReason(.unanswered, ["arp", "mdns"])
        #expect(
            describe(from: makeSnapshot(devices: [plug]), to: makeSnapshot(devices: [why]))
                == ["~ 00:00:0c:12:34:56: offline (unanswered asked=arp,mdns)"],
            "with the reason when the daemon gives one"
        )
        #expect(
            describe(from: makeSnapshot(devices: [plug]), to: makeSnapshot(devices: [offline]))
                == ["~ 00:00:0c:12:34:56: offline"]
        )
        plug.macAddresses = ["00:00:0c:12:34:56"]
        #expect(
            describe(from: makeSnapshot(devices: [offline]), to: makeSnapshot(devices: [plug]))
                == ["~ 00:00:0c:12:34:56: online"]
        )
    }

    @Test("an address another device answers for now is one ! line, besides the two changes")
    func addressMoved() {
        var other = makeDevice(
            "nas.local",
            name: "NAS",
            addresses: ["10.0.0.21"],
            services: [makeService("_smb._tcp", name: "NAS")]
        )
        var printerNow = printer
        printerNow.addresses = []
        other.addresses = ["10.0.0.20", "10.0.0.21"]
        let lines = describe(
            from: makeSnapshot(devices: [
                printer,
                makeDevice(
                    "nas.local",
                    name: "NAS",
                    addresses: ["10.0.0.21"],
                    services: [makeService("_smb._tcp", name: "NAS")]
                ),
            ]),
            to: makeSnapshot(devices: [printerNow, other])
        )
        #expect(lines.last == "! address 10.0.0.20 moved from Office Printer to NAS")
        #expect(lines.count == 3)
    }
}
