import AsyncPrimitives
import Discovery
import SystemBus

/// One connection's life with bluetoothd, on the source's bus thread: subscribes to BlueZ's signals, reads its
/// objects, keeps LE discovery running on every powered adapter while browsing, and turns what changes into
/// observations (``BlueZObjects``). Not thread-safe: used by the bus thread only.
final class BlueZSession {
    static let service = "org.bluez"
    private let bus: SystemBus
    private var objects: BlueZObjects
    private unowned let source: BluetoothDiscoverySource
    /// Whether org.bluez has an owner (bluetoothd runs).
    private var bluezPresent = false
    /// The adapters (object paths) discovery was started on by this connection.
    private var discovering: Set<String> = []
    /// The adapters whose StartDiscovery was refused (logged once each).
    private var refused: Set<String> = []
    private var browsing = false
    /// Whether an unreadable signal was logged on this connection.
    private var unreadableLogged = false

    init(bus: SystemBus, objects: BlueZObjects, source: BluetoothDiscoverySource) {
        self.bus = bus
        self.objects = objects
        self.source = source
    }

    /// Runs until the source is cancelled; throws when the bus connection ends.
    func run(on reader: ReaderThread) throws {
        let sender = "sender='\(Self.service)'"
        try bus.addMatch("type='signal',\(sender),interface='org.freedesktop.DBus.ObjectManager'")
        try bus.addMatch(
            "type='signal',\(sender),interface='org.freedesktop.DBus.Properties',member='PropertiesChanged'"
        )
        try bus.addMatch(
            "type='signal',sender='org.freedesktop.DBus',interface='org.freedesktop.DBus',"
                + "member='NameOwnerChanged',arg0='\(Self.service)'"
        )
        browsing = source.browsing
        try reload(reconnected: false)
        try bus.run(on: reader, onSignal: handle, onUnreadable: unreadable, onWake: wokeUp)
    }

    /// Reads every object again (at start, and when bluetoothd appears on the bus).
    private func reload(reconnected: Bool) throws {
        let reply: [DBusValue]
        do {
            reply = try bus.call(
                destination: Self.service,
                path: "/",
                interface: "org.freedesktop.DBus.ObjectManager",
                member: "GetManagedObjects"
            )
        } catch let error as DBusError where error.code == .call {
            bluezPresent = false
            source.send(objects.clear())
            source.logUnavailable("bluetoothd: \(error)")
            return
        }
        bluezPresent = true
        discovering = []
        if reconnected { source.logReconnected("bluetoothd") }
        guard let managed = reply.first else {
            throw DBusError(.reply, operation: "GetManagedObjects", message: "empty")
        }
        source.send(objects.load(managedObjects: managed, now: source.now()))
        adaptersChanged()
    }

    private func handle(_ signal: DBusSignal) throws {
        let now = source.now()
        switch (signal.interface, signal.member) {
        case ("org.freedesktop.DBus", "NameOwnerChanged"):
            let newOwner = signal.arguments.count == 3 ? signal.arguments[2].string ?? "" : ""
            if newOwner.isEmpty {
                bluezPresent = false
                discovering = []
                source.send(objects.clear())
                source.logUnavailable("bluetoothd left the bus")
            } else {
                try reload(reconnected: true)
            }
        case ("org.freedesktop.DBus.ObjectManager", "InterfacesAdded"):
            guard signal.arguments.count == 2, let path = signal.arguments[0].string else { return }
            let observations = objects.interfacesAdded(path: path, interfaces: signal.arguments[1], now: now)
            source.send(observations)
            if observations.contains(where: { if case .adapters = $0 { true } else { false } }) { adaptersChanged() }
        case ("org.freedesktop.DBus.ObjectManager", "InterfacesRemoved"):
            guard signal.arguments.count == 2, let path = signal.arguments[0].string else { return }
            let interfaces = (signal.arguments[1].elements ?? []).compactMap(\.string)
            source.send(objects.interfacesRemoved(path: path, interfaces: interfaces))
            if interfaces.contains(BlueZObjects.adapterInterface) {
                discovering.remove(path)
                adaptersChanged()
            }
        case ("org.freedesktop.DBus.Properties", "PropertiesChanged"):
            guard signal.arguments.count == 3, let interface = signal.arguments[0].string else { return }
            let observations = objects.propertiesChanged(
                path: signal.path,
                interface: interface,
                changed: signal.arguments[1],
                invalidated: (signal.arguments[2].elements ?? []).compactMap(\.string),
                now: now
            )
            source.send(observations)
            if interface == BlueZObjects.adapterInterface, signal.arguments[1].dictionary?["Powered"] != nil {
                adaptersChanged()
            }
        default:
            break
        }
    }

    /// Signals that could not be read: whatever they said, reading every object again (once) learns it.
    private func unreadable(_ signals: [UnreadableSignal]) throws {
        if !unreadableLogged, let first = signals.first {
            unreadableLogged = true
            source.logSignalUnreadable(first.signal, error: first.error)
        }
        if bluezPresent { try reload(reconnected: false) }
    }

    /// A wakeup of the reader thread: browsing switched, or cancelled.
    private func wokeUp() throws -> Bool {
        guard source.wokeUp() else { return false }
        let nowBrowsing = source.browsing
        guard nowBrowsing != browsing else { return true }
        browsing = nowBrowsing
        if browsing {
            source.send([.adapters(objects.adapterList)] + objects.currentAdvertisements(now: source.now()))
        }
        adaptersChanged()
        return true
    }

    /// Starts discovery on every powered adapter it does not run on while browsing; stops it otherwise.
    private func adaptersChanged() {
        guard bluezPresent else { return }
        if objects.adapters.isEmpty {
            source.logUnavailable(
                objects.adapterNames.isEmpty ? "no controller" : "no controller of those named"
            )
            return
        }
        source.available()
        let powered = Set(objects.poweredAdapterPaths)
        discovering.formIntersection(powered)
        if browsing {
            for path in powered.subtracting(discovering).sorted() { startDiscovery(path) }
        } else {
            for path in discovering.sorted() { stopDiscovery(path) }
        }
    }

    private func startDiscovery(_ path: String) {
        let adapter = "org.bluez.Adapter1"
        do {
            _ = try bus.call(
                destination: Self.service,
                path: path,
                interface: adapter,
                member: "SetDiscoveryFilter",
                arguments: [
                    .stringVariantDictionary(["Transport": .string("le"), "DuplicateData": .boolean(true)])
                ]
            )
            _ = try bus.call(destination: Self.service, path: path, interface: adapter, member: "StartDiscovery")
            discovering.insert(path)
            refused.remove(path)
        } catch {
            if refused.insert(path).inserted {
                source.logDiscoveryRefused(adapter: BlueZObjects.lastComponent(path), error: error)
            }
        }
    }

    private func stopDiscovery(_ path: String) {
        discovering.remove(path)
        // Failing to stop (the adapter went, or discovery already ended) leaves nothing to undo.
        _ = try? bus.call(
            destination: Self.service,
            path: path,
            interface: "org.bluez.Adapter1",
            member: "StopDiscovery"
        )
    }
}
