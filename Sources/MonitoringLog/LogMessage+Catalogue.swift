import Logging

// The catalogue: every message peerscand logs, by subsystem. docs/operations.md's log table lists the same messages,
// levels and keys (a unit test compares them). Metadata keys are dotted; a device line carries ``deviceKeys``.

extension LogMessage {
    /// The keys of a device's fields on a device line: `id`, `name`, `host`, `mac`, `vendor`, `address` (the first
    /// one), `addresses`, `services` (types).
    public static let deviceKeys = [
        "id", "name", "host", "mac", "vendor", "address", "addresses", "services", "bluetooth",
    ]

    // MARK: Devices

    /// A device seen for the first time (since it was last forgotten).
    public static let newDevice = LogMessage("new device", .notice, keys: deviceKeys)
    /// A device answers again, or one known from before is back.
    public static let deviceOnline = LogMessage("device online", .info, keys: deviceKeys + ["reason", "via"])
    /// A device stopped answering `--offline-after` ago.
    public static let deviceOffline = LogMessage("device offline", .info, keys: deviceKeys + ["reason", "asked"])
    /// A device forgotten (`--forget-after`, or by a client).
    public static let deviceRemoved = LogMessage("device removed", .info, keys: deviceKeys)
    /// A device's fields changed (not its presence).
    public static let deviceChanged = LogMessage("device changed", .info, keys: deviceKeys + ["fields"])
    /// A MAC-only device turned out to be an mDNS host's, or a person merged two devices.
    public static let deviceMerged = LogMessage("device merged", .info, keys: deviceKeys + ["into"])
    /// A person split a key (`key`) off a device (`id`): it is the device `into` now.
    public static let deviceSplit = LogMessage("device split", .notice, keys: ["id", "key", "into"])
    /// Two MAC addresses claim one address within the conflict window (`important=true` if either's device is
    /// important).
    public static let addressConflict = LogMessage(
        "address conflict",
        .warning,
        keys: ["address", "mac", "mac.previous", "important"]
    )

    // The lines of an important device (`peerscanctl set --important`), at warning so that `journalctl -p warning`
    // is the alert feed: the same messages, with `important=true`.

    /// ``newDevice`` of an important device, or of any device with `--alert-new-devices` (arpwatch's "new station").
    public static let newDeviceAlert = LogMessage("new device", .warning, keys: deviceKeys + ["important"])
    /// ``deviceOnline`` of an important device.
    public static let importantDeviceOnline = LogMessage(
        "device online",
        .warning,
        keys: deviceKeys + ["reason", "via", "important"]
    )
    /// ``deviceOffline`` of an important device.
    public static let importantDeviceOffline = LogMessage(
        "device offline",
        .warning,
        keys: deviceKeys + ["reason", "asked", "important"]
    )

    /// The variant at warning of a device line for an important device (``newDeviceAlert``,
    /// ``importantDeviceOnline``, ``importantDeviceOffline``); `message` itself if it has none.
    public static func alerting(_ message: LogMessage) -> LogMessage {
        switch message {
        case newDevice: newDeviceAlert
        case deviceOnline: importantDeviceOnline
        case deviceOffline: importantDeviceOffline
        default: message
        }
    }
    /// A known address answers from another MAC address (the previous one had gone quiet).
    public static let macChanged = LogMessage("mac changed", .notice, keys: ["address", "mac", "mac.previous", "id"])

    // MARK: Scanning and the snapshot

    /// Scanning switched on or off (a client, a signal).
    public static let scanningSwitched = LogMessage("scanning switched", .info, keys: ["enabled"])
    /// The first browse after start settled: clients get their first snapshot.
    public static let initialBrowseSettled = LogMessage("initial browse settled", .info, keys: ["reason", "devices"])
    /// The browsed interfaces changed.
    public static let interfacesChanged = LogMessage("interfaces changed", .info, keys: ["interfaces"])
    /// The snapshot could not be edited (a bug): the last good state is kept.
    public static let snapshotEditFailed = LogMessage("snapshot edit failed", .error, keys: ["error"])
    /// A limit of the system reached: what is beyond it may not be seen. Logged once per limit; `estimate=true` for
    /// Avahi's cache (avahi-daemon does not tell how full it is); for a neighbour table, `enobufs` is how many
    /// datagrams of the last probe round the kernel had no room for (`ENOBUFS`).
    public static let systemLimitReached = LogMessage(
        "system limit reached",
        .warning,
        keys: ["limit", "value", "setting", "estimate", "enobufs"]
    )
    /// A system limit's setting could not be read at start: its default is assumed.
    public static let systemLimitUnknown = LogMessage("system limit unknown", .warning, keys: ["error"])
    /// The scanning switch could not be read at start.
    public static let stateLoadFailed = LogMessage("state load failed", .error, keys: ["error", "scanning"])
    /// The scanning switch could not be saved.
    public static let stateSaveFailed = LogMessage("state save failed", .error, keys: ["error"])

    // MARK: Avahi

    /// The mDNS source's state changed (its connection to avahi-daemon). The line reads `avahi state`, as operators'
    /// alerts expect (docs/operations.md).
    public static let mdnsSourceState = LogMessage("avahi state", .notice, keys: ["state", "reason"])
    /// The resync after an Avahi restart finished.
    public static let avahiResyncFinished = LogMessage("avahi resync finished", .info, keys: ["reason"])
    /// The address records' resync after an Avahi restart finished after more than one round.
    public static let avahiAddressResyncFinished = LogMessage("avahi address resync finished", .info, keys: ["rounds"])
    /// Avahi withdrew what it learnt on an interface whose link went down.
    public static let interfaceWithdrawn = LogMessage("interface withdrawn", .notice, keys: ["interface", "devices"])
    /// A withdrawn interface's link is back.
    public static let interfaceReturned = LogMessage("interface returned", .info, keys: ["interface"])
    /// A withdrawn interface's resync finished.
    public static let interfaceResyncFinished = LogMessage(
        "interface resync finished",
        .info,
        keys: ["interface", "removed", "rounds"]
    )
    /// Avahi refused a resolver or record browser (its per-client object limit, say).
    public static let avahiResolverRefused = LogMessage(
        "avahi resolver refused",
        .warning,
        keys: ["avahi.service", "avahi.error", "avahi.refused"]
    )
    /// Later refusals, counted on the first one's line.
    public static let avahiResolverRefusedAgain = LogMessage(
        "avahi resolver refused",
        .debug,
        keys: ["avahi.service", "avahi.error", "avahi.refused"]
    )
    /// The Avahi clients held were all full (`objects-per-client-max`): one more was opened.
    public static let avahiClientAdded = LogMessage("avahi client added", .info, keys: ["avahi.clients"])
    /// An Avahi browser could not be created, or failed; `avahi.failed` counts the failures since the client last ran.
    public static let avahiBrowserFailed = LogMessage(
        "avahi browser failed",
        .warning,
        keys: ["avahi.error", "avahi.failed"]
    )
    /// Later failures of an outage of the daemon already logged (`avahiBrowserFailed`), counted on their line.
    public static let avahiBrowserFailedAgain = LogMessage(
        "avahi browser failed",
        .debug,
        keys: ["avahi.error", "avahi.failed"]
    )
    public static let avahiBrowserStopped = LogMessage("avahi browser stopped", .debug)
    public static let avahiBrowsing = LogMessage("avahi browsing", .debug, keys: ["avahi.enabled"])
    public static let avahiUnavailable = LogMessage("avahi unavailable", .debug, keys: ["avahi.error"])
    public static let avahiServerState = LogMessage("avahi server state", .debug, keys: ["avahi.state", "avahi.host"])
    public static let avahiReconnect = LogMessage("avahi reconnect", .debug, keys: ["avahi.delay"])
    public static let avahiServiceRemoved = LogMessage("avahi service removed", .debug, keys: ["avahi.service"])
    public static let avahiServiceResolved = LogMessage("avahi service resolved", .debug, keys: ["avahi.service"])
    public static let avahiResolveFailed = LogMessage(
        "avahi resolve failed",
        .debug,
        keys: ["avahi.service", "avahi.error"]
    )
    public static let avahiAddressRecord = LogMessage(
        "avahi address",
        .debug,
        keys: ["avahi.address", "avahi.new"]
    )

    // MARK: Neighbour table and probing

    /// The kernel's neighbour table cannot be followed (retried with a backoff).
    public static let neighbourTableUnavailable = LogMessage(
        "neighbour table unavailable",
        .error,
        keys: ["error", "retry"]
    )
    /// The neighbour table could not be read when scanning was switched on.
    public static let neighbourTableReadFailed = LogMessage("neighbour table read failed", .error, keys: ["error"])
    /// The kernel dropped neighbour notifications (ENOBUFS): the table is read again.
    public static let neighbourTableOverrun = LogMessage("neighbour table overrun", .notice, keys: ["error"])
    /// No Wi-Fi: the kernel has no nl80211 (no Wi-Fi stack) or no wireless interface is there (or none of those
    /// `--interface` names); logged once, the source then idles (a wireless interface that appears is picked up, and
    /// nl80211 is tried again: ``wifiAvailable``).
    public static let wifiUnavailable = LogMessage("wifi unavailable", .info, keys: ["reason"])
    /// nl80211 answered after following it had failed (a Wi-Fi driver loaded later): its interfaces are read.
    public static let wifiAvailable = LogMessage("wifi available", .info)
    /// Triggering a scan was refused (no CAP_NET_ADMIN); logged once, the source then follows others' scans only.
    public static let wifiScanRefused = LogMessage("wifi scan refused", .warning, keys: ["interface", "error"])
    /// The kernel's wireless interfaces or scan results could not be read; tried again at the next event.
    public static let wifiReadFailed = LogMessage("wifi read failed", .warning, keys: ["interface", "error"])
    /// The kernel's dump of wireless interfaces repeated an interface index: the interface first by name is kept, the
    /// other skipped; logged once while the dumps repeat it.
    public static let wifiInterfaceRepeated = LogMessage(
        "wifi interface repeated",
        .warning,
        keys: ["index", "interface", "interface.kept"]
    )
    /// Probing could not start.
    public static let probingUnavailable = LogMessage("probing unavailable", .error, keys: ["error"])
    /// Probing started.
    public static let probing = LogMessage(
        "probing",
        .info,
        keys: ["interval", "interfaces", "addresses", "reverify", "ipv6", "rate", "floor"]
    )
    /// Forced re-probes are not permitted (no CAP_NET_ADMIN): re-verification falls back to datagrams.
    public static let neighbourReprobeNotPermitted = LogMessage(
        "neighbour re-probe not permitted",
        .info,
        keys: ["error", "fallback"]
    )
    public static let probeRound = LogMessage(
        "probe round",
        .debug,
        keys: ["swept", "failures", "enobufs", "known", "forced", "asked", "error"]
    )

    // MARK: Questions (is a host whose neighbour entries failed still there?)

    /// A host was asked (a one-shot mDNS query for its host name).
    public static let hostAsked = LogMessage("host asked", .debug, keys: ["host", "interfaces"])
    /// A host answered a question.
    public static let hostAnswered = LogMessage("host answered", .debug, keys: ["host", "address"])
    /// No answer to a question came in time.
    public static let hostUnanswered = LogMessage("host unanswered", .debug, keys: ["host"])
    /// A question could not be sent (no socket, no interface): the host goes offline at its deadline unasked.
    public static let hostQuestionFailed = LogMessage("host question failed", .warning, keys: ["host", "error"])

    // MARK: Registry and vendors

    public static let registryUnusable = LogMessage("registry unusable", .error, keys: ["path", "error"])
    public static let registryMovedAside = LogMessage("registry moved aside", .error, keys: ["path", "path.moved"])
    public static let registryUnavailable = LogMessage(
        "registry unavailable",
        .error,
        keys: ["path", "error", "serving"]
    )
    public static let registryWriteFailed = LogMessage(
        "registry write failed",
        .error,
        keys: ["error", "devices.pending"]
    )
    public static let registryWritesResumed = LogMessage("registry writes resumed", .notice, keys: ["path"])
    public static let registryLoaded = LogMessage("registry loaded", .info, keys: ["path", "devices", "forgotten"])
    public static let registryForgetting = LogMessage("registry forgetting", .info, keys: ["devices"])
    public static let vendorDatabaseUnusable = LogMessage("vendor data unusable", .warning, keys: ["error"])

    // MARK: Clients (Varlink)

    /// The keys of a client's connection, on every line about it: its number, and the peer's pid and uid.
    public static let connectionKeys = ["connection", "pid", "uid"]

    public static let clientConnected = LogMessage("client connected", .info, keys: connectionKeys)
    public static let clientDisconnected = LogMessage("client disconnected", .info, keys: connectionKeys + ["reason"])
    public static let clientDisconnectedAtShutdown = LogMessage(
        "client disconnected",
        .debug,
        keys: connectionKeys + ["reason"]
    )
    public static let clientError = LogMessage("client error", .notice, keys: connectionKeys + ["error"])
    public static let clientLimit = LogMessage(
        "client limit",
        .notice,
        keys: connectionKeys + ["reason", "limit", "suppressed", "errno", "error"]
    )
    public static let clientDenied = LogMessage("client denied", .notice, keys: connectionKeys + ["method"])
    public static let clientSetScanning = LogMessage("client set scanning", .info, keys: connectionKeys + ["enabled"])
    public static let clientForgotDevice = LogMessage("client forgot device", .notice, keys: connectionKeys + ["id"])
    public static let clientMergedDevices = LogMessage(
        "client merged devices",
        .notice,
        keys: connectionKeys + ["id", "others"]
    )
    public static let clientSplitDevice = LogMessage(
        "client split device",
        .notice,
        keys: connectionKeys + ["id", "key"]
    )
    public static let clientLabelledDevice = LogMessage(
        "client labelled device",
        .notice,
        keys: connectionKeys + ["id", "label", "note", "important"]
    )
    public static let clientResumed = LogMessage(
        "client resumed",
        .info,
        keys: connectionKeys + ["since", "changesets"]
    )
    public static let clientResync = LogMessage("client resync", .info, keys: connectionKeys + ["reason"])
    public static let clientResyncOverflow = LogMessage(
        "client resync",
        .notice,
        keys: connectionKeys + ["reason", "dropped"]
    )
    /// A changeset could not be encoded (a bug): the client that reached it gets the snapshot instead.
    public static let clientResyncEncodingFailed = LogMessage(
        "client resync",
        .error,
        keys: connectionKeys + ["reason", "error"]
    )
    public static let callRefused = LogMessage("call refused", .debug, keys: connectionKeys + ["method", "reason"])
    public static let callFailed = LogMessage("call failed", .debug, keys: connectionKeys + ["method", "error"])

    // MARK: MQTT

    public static let mqttUnusable = LogMessage("mqtt unusable", .critical, keys: ["error"])
    public static let mqttConnecting = LogMessage("mqtt connecting", .info, keys: ["broker", "prefix"])
    public static let mqttConnected = LogMessage("mqtt connected", .notice, keys: ["protocol"])
    public static let mqttDisconnected = LogMessage("mqtt disconnected", .warning, keys: ["reason"])
    public static let mqttConnectionFailed = LogMessage(
        "mqtt connection failed",
        .warning,
        keys: ["reason", "retrying"]
    )
    public static let mqttConnectionRetryFailed = LogMessage("mqtt connection failed", .debug, keys: ["reason"])
    public static let mqttSubscribeFailed = LogMessage("mqtt subscribe failed", .warning, keys: ["filter", "error"])
    public static let mqttPublishFailed = LogMessage("mqtt publish failed", .debug, keys: ["topic", "error"])
    public static let mqttResync = LogMessage("mqtt resync", .notice, keys: ["dropped"])
    public static let mqttStopped = LogMessage("mqtt stopped", .info, keys: ["events.dropped"])

    // MARK: The daemon

    public static let starting = LogMessage("starting", .info, keys: ["version", "scanning", "interfaces", "socket"])
    public static let ready = LogMessage("ready", .info, keys: ["status"])
    public static let stopped = LogMessage("stopped", .info)
    public static let sighupIgnored = LogMessage("sighup ignored", .info, keys: ["reason"])
    public static let systemdNotifyFailed = LogMessage("systemd notify failed", .warning, keys: ["error"])

    /// Every message, in the order of docs/operations.md's table.
    public static let catalogue: [LogMessage] = [
        newDevice, newDeviceAlert, deviceOnline, importantDeviceOnline, deviceOffline, importantDeviceOffline,
        deviceRemoved, deviceChanged, deviceMerged, deviceSplit, addressConflict, macChanged,
        scanningSwitched, initialBrowseSettled, interfacesChanged, systemLimitReached, systemLimitUnknown,
        snapshotEditFailed, stateLoadFailed,
        stateSaveFailed,
        mdnsSourceState, avahiResyncFinished, avahiAddressResyncFinished, interfaceWithdrawn, interfaceReturned,
        interfaceResyncFinished, avahiResolverRefused, avahiResolverRefusedAgain, avahiClientAdded,
        avahiBrowserFailed, avahiBrowserFailedAgain,
        avahiBrowserStopped, avahiBrowsing, avahiUnavailable, avahiServerState, avahiReconnect, avahiServiceRemoved,
        avahiServiceResolved, avahiResolveFailed, avahiAddressRecord,
        neighbourTableUnavailable, neighbourTableReadFailed, neighbourTableOverrun, wifiUnavailable, wifiAvailable,
        wifiScanRefused, wifiReadFailed, wifiInterfaceRepeated, bluetoothUnavailable, bluetoothReconnected,
        bluetoothDiscoveryRefused,
        bluetoothSignalUnreadable, bluetoothAddressUnresolved, probingUnavailable, probing,
        neighbourReprobeNotPermitted, probeRound, hostAsked, hostAnswered, hostUnanswered, hostQuestionFailed,
        registryUnusable, registryMovedAside, registryUnavailable, registryWriteFailed, registryWritesResumed,
        registryLoaded,
        registryForgetting, vendorDatabaseUnusable,
        clientConnected, clientDisconnected, clientDisconnectedAtShutdown, clientError, clientLimit, clientDenied,
        clientSetScanning, clientForgotDevice, clientLabelledDevice, clientMergedDevices,
        clientSplitDevice, clientResumed, clientResync, clientResyncOverflow,
        clientSetDeviceIRK, bluetoothIRKFileUnusable,
        clientResyncEncodingFailed, callRefused,
        callFailed,
        mqttUnusable, mqttConnecting, mqttConnected, mqttDisconnected, mqttConnectionFailed, mqttConnectionRetryFailed,
        mqttSubscribeFailed, mqttPublishFailed, mqttResync, mqttStopped,
        starting, ready, stopped, sighupIgnored, systemdNotifyFailed,
        newWiFiNetwork, wifiNetworkGone, newAccessPoint, possibleEvilTwin, registryForgettingNetworks,
        clientTrustedWiFiNetwork, clientUntrustedWiFiNetwork,
        webListening, webConnectionRefused, webCallFailed, webStreamClientGone, webStreamEnded,
        alertQueued, alertRejected, alertDropped,
        alertSent, alertSendFailed, alertDigestFailed, alertsCallFailed,
    ]
}
