// swift-tools-version: 6.2
// peerscan: a diffable snapshot of the mDNS/DNS-SD peers on the local networks, streamed over Varlink.
//
// Modules depend downward only:
//   Diffable (no dependencies)
//   CAvahi (system library) <- AvahiBrowser (the only importer of CAvahi)
//   PeerScanCore (Diffable) : devices, snapshot, store; knows nothing about Avahi
//   peerscand (executable)   : composes AvahiBrowser + PeerScanCore
import PackageDescription

let package = Package(
    name: "peerscan",
    products: [
        .library(name: "Diffable", targets: ["Diffable"]),
        .executable(name: "peerscan-bench", targets: ["peerscan-bench"]),
        .executable(name: "peerscand", targets: ["peerscand"]),
        .executable(name: "peerscanctl", targets: ["peerscanctl"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/x-sheep/swift-property-based.git", from: "2.0.1"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "3.12.3"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-collections.git", from: "1.6.0"),
    ],
    targets: [
        // MARK: Diffable — snapshots and their differences. No dependencies, by design.
        .target(name: "Diffable"),
        .testTarget(
            name: "DiffableTests",
            dependencies: [
                "Diffable",
                "SeededRandom",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
        .systemLibrary(name: "CMalloc"),
        .executableTarget(
            name: "peerscan-bench",
            dependencies: [
                "AsyncPrimitives",
                "SeededRandom",
                "Diffable",
                "CMalloc",
                "PeerScanAPI",
                "PeerScanCore",
                "Varlink",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),

        // MARK: SeededRandom — a replayable random number generator for benchmarks and randomized tests.
        .target(name: "SeededRandom"),

        // MARK: AsyncPrimitives — two small concurrency tools: a draining queue and a one-shot event. Generic.
        .target(name: "AsyncPrimitives"),

        // MARK: Avahi — the C client library and its one Swift wrapper.
        .systemLibrary(
            name: "CAvahi",
            pkgConfig: "avahi-client",
            providers: [.apt(["libavahi-client-dev"])]
        ),
        .target(
            name: "AvahiBrowser",
            dependencies: [
                "CAvahi",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),

        // MARK: PeerScanCore — devices, the two-section snapshot and its store. Knows nothing about Avahi.
        .target(
            name: "PeerScanCore",
            dependencies: [
                "AsyncPrimitives",
                "Diffable",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .testTarget(
            name: "PeerScanCoreTests",
            dependencies: [
                "AsyncPrimitives",
                "SeededRandom",
                "PeerScanCore",
                "Diffable",
                .product(name: "InMemoryLogging", package: "swift-log"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),

        // MARK: Varlink — the IPC protocol (NUL-framed JSON on a Unix socket), generic: no peerscan knowledge.
        .target(
            name: "Varlink",
            dependencies: [
                "AsyncPrimitives",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .testTarget(
            name: "VarlinkTests",
            dependencies: [
                "Varlink",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),

        // MARK: PeerScanAPI — the io.peerscan interface: its definition, wire types, and the daemon's handler.
        .target(
            name: "PeerScanAPI",
            dependencies: ["AsyncPrimitives", "PeerScanCore", "Varlink", .product(name: "Logging", package: "swift-log")],
            exclude: ["io.peerscan.varlink"]
        ),

        .testTarget(name: "PeerScanAPITests", dependencies: ["PeerScanAPI", "PeerScanCore"]),

        // MARK: DaemonSupport — sd_notify, socket activation, the watchdog and the log format, written by hand.
        .target(
            name: "DaemonSupport",
            dependencies: [.product(name: "Logging", package: "swift-log")]
        ),
        .testTarget(
            name: "DaemonSupportTests",
            dependencies: ["DaemonSupport", .product(name: "Logging", package: "swift-log")]
        ),

        // MARK: peerscand — the daemon: composes AvahiBrowser and PeerScanCore.
        .executableTarget(
            name: "peerscand",
            dependencies: [
                "AvahiBrowser",
                "DaemonSupport",
                "PeerScanAPI",
                "PeerScanCore",
                "Varlink",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ]
        ),

        // MARK: peerscanctl — the command-line client: its logic in PeerScanClient, a thin executable on top.
        .target(
            name: "PeerScanClient",
            dependencies: [
                "Diffable",
                "PeerScanAPI",
                "PeerScanCore",
                "Varlink",
                .product(name: "NIOCore", package: "swift-nio"),
            ]
        ),
        .executableTarget(
            name: "peerscanctl",
            dependencies: [
                "PeerScanAPI",
                "PeerScanClient",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ]
        ),
        .testTarget(
            name: "PeerScanClientTests",
            dependencies: [
                "Diffable",
                "PeerScanAPI",
                "PeerScanClient",
                "PeerScanCore",
                "Varlink",
                "peerscanctl",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
