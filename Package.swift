// swift-tools-version: 6.2
// peerscan: a diffable snapshot of the devices on the local networks, streamed over Varlink.
//
// Every target in one line, in data-flow order (sources -> the discovery seam -> mDNS hosts and devices -> snapshot ->
// diff -> subscribers -> socket -> client). Modules depend downward only; each C library (C…) has one Swift wrapper, its only importer.
//   Diffable          snapshots of sections and items, and their minimal-move differences; no dependencies
//   CEventFD          eventfd(2)'s header as a system library (Swift's Glibc module leaves it out)
//   AsyncPrimitives   a draining queue, a one-shot signal, the reader thread (poll(2), an eventfd); generic (NIO's lock)
//   MonitoringLog     the catalogue of log messages, levels and keys (the monitoring contract) and how they are logged
//   CAvahi            the system library libavahi-client (pkg-config avahi-client)
//   AvahiBrowser      the Swift wrapper of CAvahi, its only importer: browse, resolve, typed events and errors
//   DiscoveryTerms    values sources report and the wire repeats: source state, service key, TXT, Wi-Fi/BLE kinds
//   PeerScanModel     the snapshot's items and sections, devices, the io.peerscan wire types, their JSON and definition
//   Discovery         the seam every source delivers through: events, observations, the source protocol, the clock
//   AvahiSource       the mDNS source: AvahiBrowser's events as discovery events, link withdrawals told apart
//   NeighbourSource   the neighbour source: the kernel's neighbour entries as observations
//   MDNSQuestions     the question source: one-shot mDNS queries asking a host whose neighbour entries failed if it is there
//   WirelessSource    the Wi-Fi source: nl80211's interfaces and scan results as wireless observations, beacons parsed
//   CSystemdBus       the system library libsystemd (pkg-config libsystemd): sd-bus, the D-Bus client
//   SystemBus         the Swift wrapper of CSystemdBus, its only importer: calls, signal matches, values, the bus's loop
//   BluetoothSource   the Bluetooth LE source: BlueZ's adapters and devices (D-Bus) as Bluetooth observations
//   BluetoothCompanies the Bluetooth SIG's company identifiers and their names (bluetooth-numbers' table, committed)
//   CCrypto           the system library libcrypto, OpenSSL's (pkg-config libcrypto)
//   SystemCrypto      the Swift wrapper of CCrypto, its only importer: SHA-1 through EVP, typed libcrypto errors
//   PeerScanCore      the daemon's state: discovery events, mDNS host table, snapshot store, scan service, UUIDv5 ids
//   Varlink           the Varlink protocol (NUL-framed JSON messages, errors) and its client
//   VarlinkServer     the Varlink server: Unix socket, connections, peer credentials, org.varlink.service
//   PeerScanServer    the daemon's side of io.peerscan: the handler, reply cache, resume history
//   TextEscaping      control characters made visible, for the terminal and for log lines
//   POSIXText         the text of what C calls fill in: fixed buffers, errno descriptions, addresses, interface names,
//                     /proc files
//   NetworkInterfaces the host's interfaces (getifaddrs) and which of them mDNS is browsed on by default
//   CNetlink          the system library libmnl (pkg-config libmnl) and the rtnetlink headers
//   NeighbourTable    the Swift wrapper of CNetlink, its only importer: the kernel's ARP/NDP table, dump and changes
//   CNl80211          the system library libnl-genl-3 (pkg-config libnl-genl-3.0) and the nl80211 headers
//   Nl80211           the Swift wrapper of CNl80211, its only importer: wireless interfaces, scan results, scans, events
//   Probing           the probe rounds: a sweep of the connected subnets, re-probes of the neighbours the kernel knows
//   MACVendors        the organization behind a MAC address, from the IEEE's assignment files (Debian's ieee-data)
//   DeviceRegistry    every device ever seen (identity keys, first/last seen, history) in SQLite through GRDB
//   CMosquitto        the system library libmosquitto (Debian: libmosquitto-dev; no pkg-config: its -D_REENTRANT is refused)
//   MQTTClient        the Swift wrapper of CMosquitto, its only importer: a connection that keeps itself up, on a reader thread
//   PeerScanMQTT      the snapshot mirrored on an MQTT broker: topics, payloads, Home Assistant discovery, the service
//   DaemonSupport     sd_notify, socket activation, the watchdog, the log format, /proc/self's figures, by hand
//   PeerscandProgram  the daemon, the composition root: makes the store, the sources, the server and the services
//   PeerScanClient    the clients' logic: connection, the --socket option, monitor session, tables and change lines
//   PeerscanctlProgram the command-line client over PeerScanClient
//   PeerscanWeb       the web page's server: routes, token, Host allowlist, the event stream, the write proxy, the page,
//                     /metrics
//   PeerscanWebProgram the HTTP server of the page (HummingbirdCore) over PeerscanWeb
//   CCurl             libcurl's header (Debian: libcurl4-openssl-dev); the library is loaded when a request is sent
//   HTTPRequests      the Swift wrapper of CCurl, its only importer: an HTTP(S) request and its answer, on a thread
//   AlertDelivery     the alerts' destinations (Apprise's URLs), their requests, the retry policy, delivery over HTTP
//   PeerscanAlertsProgram the alerts' sender: follows peerscand's outbox (FollowAlerts), delivers, acknowledges
//   peerscand, peerscanctl, peerscan-web, peerscan-alerts   each program's own executable (development, tests)
//   peerscan          the package's one executable: the four programs, run by the name it is started as
//   SeededRandom      a replayable random number generator for benchmarks and randomized tests
//   CMalloc           glibc's <malloc.h> as a system library, imported by Allocator only
//   Allocator         glibc's allocator: what it holds (the benchmarks' memory figures), the fixed mapping threshold of
//                     peerscan-web and peerscand, and the pages start-up leaves resident, handed back
//   peerscan-bench    the diff, fanout and registry benchmarks (on TestSupport's manual clock where time is simulated)
//   peerscan-fuzz     a libFuzzer target over Varlink framing and request decoding (make fuzz)
//   JSONValue         a JSON value, decoded strictly and encoded as decoded: peerscan-web's request bodies, the tests
//   TestSupport       what the tests share: temporary directories, POSIX failures, waits, a silent logger, a manual
//                     clock (and JSONValue, re-exported)
import PackageDescription

let package = Package(
    name: "peerscan",
    products: [
        .library(name: "Diffable", targets: ["Diffable"]),
        .executable(name: "peerscan-bench", targets: ["peerscan-bench"]),
        .executable(name: "peerscan", targets: ["peerscan"]),
        .executable(name: "peerscand", targets: ["peerscand"]),
        .executable(name: "peerscanctl", targets: ["peerscanctl"]),
        .executable(name: "peerscan-web", targets: ["peerscan-web"]),
        .executable(name: "peerscan-alerts", targets: ["peerscan-alerts"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/x-sheep/swift-property-based.git", from: "2.0.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-collections.git", from: "1.6.0"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        // Only HummingbirdCore is used (its HTTP/1 channel, request and response types): no traits, so neither
        // swift-configuration nor full Foundation is built for it.
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1", traits: []),
        .package(url: "https://github.com/apple/swift-async-algorithms.git", from: "1.1.4"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
    ],
    targets: [
        // MARK: Diffable — snapshots and their differences. No dependencies, by design.
        .target(name: "Diffable"),
        .testTarget(
            name: "DiffableTests",
            dependencies: [
                "Diffable",
                "SeededRandom",
                "TestSupport",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),

        // MARK: AsyncPrimitives — a draining queue, a one-shot signal, the reader thread the C wrappers read on. Generic.
        .systemLibrary(name: "CEventFD"),
        .target(
            name: "AsyncPrimitives",
            dependencies: ["CEventFD", .product(name: "NIOConcurrencyHelpers", package: "swift-nio")]
        ),
        .testTarget(
            name: "AsyncPrimitivesTests",
            dependencies: [
                "AsyncPrimitives", "TestSupport", .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ]
        ),

        // MARK: MonitoringLog — the catalogue of log messages (the monitoring contract). Only swift-log.
        .target(name: "MonitoringLog", dependencies: [.product(name: "Logging", package: "swift-log")]),
        .testTarget(
            name: "MonitoringLogTests",
            dependencies: ["MonitoringLog", .product(name: "Logging", package: "swift-log")]
        ),

        // MARK: Avahi — the C client library and its one Swift wrapper.
        .systemLibrary(
            name: "CAvahi",
            pkgConfig: "avahi-client",
            providers: [.apt(["libavahi-client-dev"])]
        ),
        .target(
            name: "AvahiBrowser",
            dependencies: [
                "POSIXText",
                "MonitoringLog",
                "NetworkInterfaces",
                "CAvahi",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ]
        ),
        .testTarget(name: "AvahiBrowserTests", dependencies: ["AvahiBrowser"]),

        // MARK: DiscoveryTerms — the small values sources report in and the wire repeats; no dependencies.
        .target(name: "DiscoveryTerms"),

        // MARK: PeerScanModel — what the daemon and its clients share: items, devices, the io.peerscan wire types.
        .target(
            name: "PeerScanModel",
            dependencies: ["Diffable", "DiscoveryTerms"],
            resources: [.embedInCode("io.peerscan.varlink")]
        ),
        .testTarget(
            name: "PeerScanModelTests",
            dependencies: [
                "Diffable",
                "PeerScanModel",
                "SeededRandom",
                "TestSupport",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),

        // MARK: SystemCrypto — OpenSSL's libcrypto (which libmosquitto loads anyway) and its one wrapper.
        .systemLibrary(
            name: "CCrypto",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]
        ),
        .target(name: "SystemCrypto", dependencies: ["POSIXText", "CCrypto"]),
        .testTarget(name: "SystemCryptoTests", dependencies: ["SystemCrypto"]),

        // MARK: Discovery — the seam every source delivers through: events, observations, the source protocol, the clock.
        .target(name: "Discovery", dependencies: ["DiscoveryTerms", "NetworkInterfaces"]),

        // MARK: The sources — each a module over its wrapper, depending on the seam only (never on the store).
        .target(
            name: "AvahiSource",
            dependencies: [
                "AvahiBrowser", "Discovery", "DiscoveryTerms", "NetworkInterfaces",
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "AvahiSourceTests",
            dependencies: [
                "AvahiBrowser", "AvahiSource", "Discovery", "PeerScanModel", "TestSupport",
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ]
        ),
        .target(
            name: "NeighbourSource",
            dependencies: [
                "Discovery", "MonitoringLog", "NeighbourTable",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ]
        ),
        .testTarget(name: "NeighbourSourceTests", dependencies: ["Discovery", "NeighbourSource", "NeighbourTable"]),
        .target(
            name: "MDNSQuestions",
            dependencies: [
                "POSIXText",
                "Discovery", "MonitoringLog",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ]
        ),
        .testTarget(name: "MDNSQuestionsTests", dependencies: ["Discovery", "MDNSQuestions"]),
        .target(
            name: "WirelessSource",
            dependencies: [
                "Discovery", "DiscoveryTerms", "MonitoringLog", "Nl80211",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "WirelessSourceTests",
            dependencies: [
                "Discovery", "Nl80211", "PeerScanModel", "TestSupport", "WirelessSource",
                .product(name: "InMemoryLogging", package: "swift-log"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            exclude: ["Fixtures"]
        ),
        // Bluetooth LE through BlueZ's D-Bus API: sd-bus (libsystemd) and its one wrapper, the source, company names.
        .systemLibrary(
            name: "CSystemdBus",
            pkgConfig: "libsystemd",
            providers: [.apt(["libsystemd-dev"])]
        ),
        .target(name: "SystemBus", dependencies: ["POSIXText", "AsyncPrimitives", "CSystemdBus"]),
        .testTarget(name: "SystemBusTests", dependencies: ["SystemBus"]),
        .target(
            name: "BluetoothSource",
            dependencies: [
                "AsyncPrimitives", "Discovery", "DiscoveryTerms", "MonitoringLog", "SystemBus",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "BluetoothSourceTests",
            dependencies: [
                "BluetoothSource", "Discovery", "PeerScanModel", "SystemBus",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(name: "BluetoothCompanies"),
        .testTarget(name: "BluetoothCompaniesTests", dependencies: ["BluetoothCompanies"]),

        // MARK: PeerScanCore — the daemon's state: mDNS host table, snapshot store, scan service. Knows nothing of Avahi.
        .target(
            name: "PeerScanCore",
            dependencies: [
                "AsyncPrimitives",
                "Diffable",
                "Discovery",
                "MonitoringLog",
                "NetworkInterfaces",
                "PeerScanModel",
                "SystemCrypto",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "HeapModule", package: "swift-collections"),
            ]
        ),
        .testTarget(
            name: "PeerScanCoreTests",
            dependencies: [
                "AsyncPrimitives",
                "Diffable",
                "Discovery",
                "NetworkInterfaces",
                "MonitoringLog",
                "PeerScanCore",
                "PeerScanModel",
                "SeededRandom",
                "TestSupport",
                .product(name: "InMemoryLogging", package: "swift-log"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ]
        ),

        // MARK: Varlink — the IPC protocol (NUL-framed JSON on a Unix socket) and its client; the server apart.
        .target(
            name: "Varlink",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        .target(
            name: "VarlinkServer",
            dependencies: [
                "MonitoringLog",
                "POSIXText",
                "AsyncPrimitives",
                "Varlink",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "VarlinkTests",
            dependencies: [
                "TestSupport",
                "Varlink",
                "VarlinkServer",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ]
        ),

        // MARK: PeerScanServer — the daemon's side of io.peerscan.
        .target(
            name: "PeerScanServer",
            dependencies: [
                "MonitoringLog",
                "PeerScanCore",
                "PeerScanModel",
                "Varlink",
                "VarlinkServer",
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "PeerScanServerTests",
            dependencies: [
                "DeviceRegistry",
                "Diffable",
                "PeerScanCore",
                "PeerScanModel",
                "PeerScanServer",
                "TestSupport",
                "Varlink",
                "VarlinkServer",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
            ]
        ),

        // MARK: TextEscaping — control characters made visible (terminal output, log lines).
        .target(name: "TextEscaping"),

        // MARK: JSONValue — a JSON value, decoded strictly and encoded as decoded.
        .target(name: "JSONValue"),
        .testTarget(name: "JSONValueTests", dependencies: ["JSONValue"]),

        // MARK: POSIXText — the text of C buffers, errno values, addresses (inet_ntop), interface indices and /proc files.
        .target(name: "POSIXText"),
        .testTarget(name: "POSIXTextTests", dependencies: ["POSIXText"]),

        // MARK: NetworkInterfaces — the host's interfaces, from the kernel.
        .target(name: "NetworkInterfaces", dependencies: ["POSIXText"]),
        .testTarget(name: "NetworkInterfacesTests", dependencies: ["NetworkInterfaces"]),

        // MARK: The kernel's neighbour table (libmnl and its one wrapper), active probing, MAC vendors.
        .systemLibrary(
            name: "CNetlink",
            pkgConfig: "libmnl",
            providers: [.apt(["libmnl-dev"])]
        ),
        .target(
            name: "NeighbourTable",
            dependencies: [
                "POSIXText",
                "AsyncPrimitives", "CNetlink", "MonitoringLog", .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "NeighbourTableTests",
            dependencies: ["NeighbourTable", "TestSupport", .product(name: "Logging", package: "swift-log")]
        ),
        // nl80211 (Wi-Fi) over generic netlink: libnl-genl-3 and its one wrapper.
        .systemLibrary(
            name: "CNl80211",
            pkgConfig: "libnl-genl-3.0",
            providers: [.apt(["libnl-genl-3-dev"])]
        ),
        .target(name: "Nl80211", dependencies: ["POSIXText", "AsyncPrimitives", "CNl80211"]),
        .testTarget(name: "Nl80211Tests", dependencies: ["Nl80211"]),
        .target(
            name: "Probing",
            dependencies: [
                "POSIXText",
                "MonitoringLog",
                "NeighbourTable",
                "NetworkInterfaces",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .testTarget(
            name: "ProbingTests",
            dependencies: [
                "NeighbourTable",
                "Probing",
                "SeededRandom",
                "TestSupport",
                .product(name: "InMemoryLogging", package: "swift-log"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(
            name: "MACVendors",
            dependencies: ["POSIXText"],
            // Optimized in debug builds too: loading the IEEE's 46,500 assignments takes ~2.5 s unoptimized, at every
            // start of the debug peerscand the integration tests run (~50 ms optimized).
            swiftSettings: [.unsafeFlags(["-O"], .when(configuration: .debug))]
        ),
        .testTarget(name: "MACVendorsTests", dependencies: ["MACVendors", "TestSupport"]),

        // MARK: DeviceRegistry — every device ever seen, in SQLite (GRDB), written off the changeset path.
        .target(
            name: "DeviceRegistry",
            dependencies: [
                "POSIXText",
                "MonitoringLog",
                "PeerScanCore",
                "PeerScanModel",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "DeviceRegistryTests",
            dependencies: [
                "DeviceRegistry",
                "Discovery",
                "PeerScanCore",
                "PeerScanModel",
                "TestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "InMemoryLogging", package: "swift-log"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),

        // MARK: MQTT — libmosquitto and its one wrapper; the snapshot's mirror on a broker (topics, payloads, discovery).
        .systemLibrary(
            name: "CMosquitto",
            providers: [.apt(["libmosquitto-dev"])]
        ),
        .target(
            name: "MQTTClient",
            dependencies: ["POSIXText", "AsyncPrimitives", "CMosquitto"]
        ),
        .testTarget(
            name: "MQTTClientTests",
            dependencies: ["MQTTClient", "TestSupport", .product(name: "NIOConcurrencyHelpers", package: "swift-nio")]
        ),
        .target(
            name: "PeerScanMQTT",
            dependencies: [
                "MonitoringLog",
                "AsyncPrimitives",
                "MQTTClient",
                "PeerScanCore",
                "PeerScanModel",
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .testTarget(
            name: "PeerScanMQTTTests",
            dependencies: ["PeerScanMQTT", "MQTTClient", "PeerScanModel", "TestSupport"]
        ),

        // MARK: DaemonSupport — sd_notify, socket activation, the watchdog and the log format, written by hand.
        .target(
            name: "DaemonSupport",
            dependencies: [
                "POSIXText",
                "TextEscaping",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "DaemonSupportTests",
            dependencies: ["DaemonSupport", "TestSupport", .product(name: "Logging", package: "swift-log")]
        ),

        // MARK: peerscand — the daemon: the program in PeerscandProgram, a thin executable on top.
        .target(
            name: "PeerscandProgram",
            dependencies: [
                "Allocator",
                "AsyncPrimitives",
                "AvahiBrowser",
                "AvahiSource",
                "BluetoothCompanies",
                "BluetoothSource",
                "DaemonSupport",
                "DeviceRegistry",
                "Discovery",
                "MACVendors",
                "MDNSQuestions",
                "MonitoringLog",
                "NeighbourSource",
                "NeighbourTable",
                "MQTTClient",
                "NetworkInterfaces",
                "PeerScanCore",
                "PeerScanMQTT",
                "PeerScanModel",
                "PeerScanServer",
                "Probing",
                "VarlinkServer",
                "WirelessSource",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "PeerscandTests",
            dependencies: [
                "AsyncPrimitives",
                "DeviceRegistry",
                "Discovery",
                "PeerScanCore",
                "PeerScanModel",
                "TestSupport",
                "PeerscandProgram",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),

        // MARK: peerscanctl — the command-line client: its logic in PeerScanClient, a thin executable on top.
        // Neither links the daemon's modules (PeerScanCore, SystemCrypto, ServiceLifecycle).
        .target(
            name: "PeerScanClient",
            dependencies: [
                "POSIXText",
                "Diffable",
                "PeerScanModel",
                "TextEscaping",
                "Varlink",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "NIOCore", package: "swift-nio"),
            ]
        ),
        .target(
            name: "PeerscanctlProgram",
            dependencies: [
                "POSIXText",
                "PeerScanClient",
                "PeerScanModel",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ]
        ),
        .testTarget(
            name: "PeerScanClientTests",
            dependencies: [
                "Discovery",
                "Diffable",
                "PeerScanClient",
                "PeerScanCore",
                "PeerScanModel",
                "PeerScanServer",
                "TestSupport",
                "Varlink",
                "VarlinkServer",
                "PeerscanctlProgram",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ]
        ),

        // MARK: peerscan-web — the page's HTTP server, one more client of io.peerscan (through PeerScanClient).
        .target(
            name: "PeerscanWeb",
            dependencies: [
                "DaemonSupport",
                "JSONValue",
                "MonitoringLog",
                "PeerScanClient",
                "PeerScanModel",
                "Varlink",
                .product(name: "AsyncAlgorithms", package: "swift-async-algorithms"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ],
            resources: [.embedInCode("Page")]
        ),
        .target(
            name: "PeerscanWebProgram",
            dependencies: [
                "Allocator",
                "DaemonSupport",
                "PeerscanWeb",
                "PeerScanClient",
                "PeerScanModel",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ]
        ),
        .testTarget(
            name: "PeerscanWebTests",
            dependencies: [
                "DaemonSupport",
                "Diffable",
                "PeerscanWeb",
                "PeerScanClient",
                "PeerScanModel",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
            ]
        ),

        // MARK: peerscan-alerts — the alerts' sender, one more client of io.peerscan: destinations, requests, delivery.
        // libcurl's header only (Debian: libcurl4-openssl-dev): HTTPRequests loads the library when a request is sent.
        .systemLibrary(name: "CCurl"),
        .target(name: "HTTPRequests", dependencies: ["POSIXText", "CCurl"]),
        .testTarget(
            name: "HTTPRequestsTests",
            dependencies: [
                "HTTPRequests", "POSIXText", "TestSupport",
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ]
        ),
        .target(
            name: "AlertDelivery",
            dependencies: [
                "MonitoringLog",
                "PeerScanModel",
                "SystemCrypto",  // SHA-1 for a digest's key (a version 5 UUID, as device ids)
                "HTTPRequests",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "AlertDeliveryTests",
            dependencies: [
                "AlertDelivery", "MonitoringLog", "PeerScanModel", "TestSupport",
                .product(name: "InMemoryLogging", package: "swift-log"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ]
        ),
        .target(
            name: "PeerscanAlertsProgram",
            dependencies: [
                "AlertDelivery",
                "DaemonSupport",
                "MonitoringLog",
                "PeerScanClient",
                "PeerScanModel",
                "Varlink",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ]
        ),

        // MARK: The executables: each program's own (for development and the tests), and one for the package that is
        // all four (docs/packaging.md, "Size": one copy of the Swift runtime and Foundation instead of four).
        .executableTarget(name: "peerscand", dependencies: ["PeerscandProgram"]),
        .executableTarget(name: "peerscanctl", dependencies: ["PeerscanctlProgram"]),
        .executableTarget(name: "peerscan-web", dependencies: ["PeerscanWebProgram"]),
        .executableTarget(name: "peerscan-alerts", dependencies: ["PeerscanAlertsProgram"]),
        .executableTarget(
            name: "peerscan",
            dependencies: [
                "PeerscandProgram", "PeerscanctlProgram", "PeerscanWebProgram", "PeerscanAlertsProgram",
                "PeerScanModel",  // its version for --version
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),

        // MARK: Benchmarks and what tests share.
        .target(name: "SeededRandom"),
        .systemLibrary(name: "CMalloc"),
        .target(name: "Allocator", dependencies: ["CMalloc", "POSIXText"]),
        .testTarget(name: "AllocatorTests", dependencies: ["Allocator"]),
        .executableTarget(
            name: "peerscan-bench",
            dependencies: [
                "POSIXText",
                "Discovery",
                "AsyncPrimitives",
                "Allocator",
                "DeviceRegistry",
                "Diffable",
                "MQTTClient",
                "PeerScanCore",
                "PeerScanMQTT",
                "PeerScanModel",
                "PeerScanServer",
                "SeededRandom",
                "TestSupport",
                "Varlink",
                "VarlinkServer",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ]
        ),
        // A libFuzzer target over Varlink framing and request decoding (`make fuzz`; a stub in ordinary builds).
        .executableTarget(
            name: "peerscan-fuzz",
            dependencies: [
                "PeerScanModel",
                "Varlink",
                "VarlinkServer",
                .product(name: "NIOCore", package: "swift-nio"),
            ]
        ),
        .target(
            name: "TestSupport",
            dependencies: [
                "JSONValue",
                "POSIXText",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
