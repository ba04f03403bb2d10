// swift-tools-version: 6.1
import PackageDescription

// Upcoming features every target opts into: explicit `any`, internal imports by default
// (so no module re-exports libnl by accident), and member import visibility.
let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

// How the shipped executables are linked in release builds (issue 36, figures from
// scripts/bench/binary-sizes.py): lld, keeping Swift's metadata sections that --gc-sections
// would otherwise drop (`-z nostart-stop-gc`, swiftlang/swift#60406); no dynamic symbol table of
// every Swift symbol (the toolchain's static-stdlib-args.lnk asks for -export-dynamic; nothing
// dlopen'd links against these executables): -3.4 MiB; and relative relocations packed as
// DT_RELR (glibc 2.36 reads them) instead of 2 MiB of .rela.dyn, still position-independent;
// every symbol bound at start (`-z now`: with RELRO, the GOT is read-only, as Debian hardens).
let shippedExecutableLinking: [LinkerSetting] = [
    .unsafeFlags([
        "-use-ld=lld", "-Xlinker", "-z", "-Xlinker", "nostart-stop-gc", "-Xlinker", "--no-export-dynamic",
        "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs", "-Xlinker", "-z", "-Xlinker", "now",
    ], .when(configuration: .release)),
]

let package = Package(
    name: "Reachability",
    products: [
        .library(name: "Reachability", targets: ["Reachability"]),
        .library(name: "ReachabilityProcesses", targets: ["ReachabilityProcesses"]),
        .library(name: "ReachabilityCore", targets: ["ReachabilityCore"]),
        .library(name: "ReachabilityTestKit", targets: ["ReachabilityTestKit"]),
        .library(name: "ReachabilityTransfers", targets: ["ReachabilityTransfers"]),
        .executable(name: "reach", targets: ["reach"]),
        .library(name: "ReachabilityDaemon", targets: ["ReachabilityDaemon"]),
        .library(name: "ReachabilitySystemd", targets: ["ReachabilitySystemd"]),
        .library(name: "ReachabilityMetrics", targets: ["ReachabilityMetrics"]),
        .library(name: "ReachabilityControl", targets: ["ReachabilityControl"]),
        .executable(name: "reach-daemon", targets: ["reach-daemon"]),
        .library(name: "ReachabilityValidation", targets: ["ReachabilityValidation"]),
        // The GIO network-monitor module (`libgioreach.so`): GLib programs read the daemon's path.
        .library(name: "gioreach", type: .dynamic, targets: ["GioReach"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-async-algorithms", from: "1.1.4"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-system", from: "1.8.1"),
        // The daemon: its lifecycle and metrics.
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        // `swift package generate-documentation` (scripts/docs.sh); a plugin, not linked.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        // libnl-3 / libnl-route-3 / libnl-genl-3 (nl80211) and the kernel headers; imported only by ReachabilityLinux (and,
        // for the layout of raw netlink messages, by its tests and the route-message fuzz target).
        .systemLibrary(
            name: "CNetlink",
            pkgConfig: "libnl-route-3.0",
            providers: [.apt(["libnl-3-dev", "libnl-route-3-dev", "libnl-genl-3-dev"])]
        ),
        // GLib's GIO (with its Unix socket addresses) and json-glib, for the GIO module.
        .systemLibrary(name: "CGioUnix", pkgConfig: "gio-unix-2.0", providers: [.apt(["libglib2.0-dev"])]),
        .systemLibrary(name: "CJsonGlib", pkgConfig: "json-glib-1.0", providers: [.apt(["libjson-glib-dev"])]),
        // A GNetworkMonitor for GIO's `gio-network-monitor` extension point, in C as GLib's module
        // API asks: it reads the daemon's path over its socket (no Swift runtime in GLib programs).
        // SwiftPM links every product with the Swift driver: without its start files, against a
        // static runtime nothing is taken from, the module needs no Swift runtime in a GLib program.
        // What the module reads from the daemon (a path per line, a route answer), parsed with
        // json-glib: apart, so that a fuzz target can link it without the module's link flags.
        .target(name: "GioReachParsing", dependencies: ["CGioUnix", "CJsonGlib"]),
        .target(
            name: "GioReach", dependencies: ["GioReachParsing", "CGioUnix"],
            linkerSettings: [.unsafeFlags(["-nostartfiles", "-static-stdlib", "-Xlinker", "--as-needed"])]
        ),
        // The system's SQLite 3 (Debian's libsqlite3, which takes security fixes with the system),
        // imported only by ReachabilitySQLite.
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        // A thin typed layer over SQLite's C API: connections owned by one caller at a time,
        // bound statements, rows of Sendable values, migrations. No Foundation.
        .target(name: "ReachabilitySQLite", dependencies: ["CSQLite"], swiftSettings: strictSettings),
        // OpenSSL's libcrypto (Debian's libssl3), for SHA-256: imported only by ReachabilityTransfers.
        .systemLibrary(name: "CCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        // glibc's GNU extensions (posix_spawn's closefrom, chdir and tcsetpgrp actions, sync_file_range), which
        // Swift's Glibc module hides: compiled with _GNU_SOURCE, called directly (no dlsym).
        .target(name: "CGNULibc"),
        // Pure values and decisions: no Glibc, no Foundation, no I/O.
        .target(name: "ReachabilityCore", swiftSettings: strictSettings),
        // The only importer of CNetlink: netlink thread, dumps, route lookups, sysfs, namespaces.
        .target(
            name: "ReachabilityLinux",
            dependencies: ["ReachabilityCore", "CNetlink", .product(name: "SystemPackage", package: "swift-system")],
            swiftSettings: strictSettings
        ),
        // Public façade: NetworkMonitor, configuration, debounce.
        .target(
            name: "Reachability",
            dependencies: [
                "ReachabilityCore",
                "ReachabilityLinux",
                .product(name: "AsyncAlgorithms", package: "swift-async-algorithms"),
            ],
            swiftSettings: strictSettings
        ),
        // Process control: commands in process groups of their own, suspended, continued and
        // terminated by signals, their terminal lent as a shell does, their output capped.
        .target(
            name: "ReachabilityProcesses",
            dependencies: ["Reachability", "ReachabilityCore", "CGNULibc"],
            swiftSettings: strictSettings
        ),
        // Policy-gated, resumable HTTP downloads (async-http-client). Kept apart so the monitor
        // modules build without NIO.
        .target(
            name: "ReachabilityTransfers",
            dependencies: [
                "Reachability",
                "ReachabilityProcesses",
                "CGNULibc",
                "ReachabilityCore",
                "CCrypto",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                // Connection failures (`NIOConnectionError`) are classified by type.
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            swiftSettings: strictSettings
        ),
        // A real HTTP/1.1 server for tests and benchmarks: Range, validators, injected faults.
        .executableTarget(
            name: "reach-testserver",
            dependencies: [
                "ReachabilityCore",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: strictSettings
        ),
        // What both command-line executables share: global options, output, formatters, checks.
        .target(
            name: "ReachCommands",
            dependencies: [
                "Reachability",
                "ReachabilityCore",
                "ReachabilityLinux",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            swiftSettings: strictSettings
        ),
        // The monitor commands (status, watch, interfaces, wait, run, config), in a library that
        // two executables carry: `reach` (no HTTP stack, so it stays small; `reach get` and
        // `reach status --probe …` exec reach-daemon, git's subcommand model) and reach-daemon
        // (which can probe).
        .target(
            name: "ReachMonitorCommands",
            dependencies: [
                "ReachCommands",
                "Reachability",
                "ReachabilityProcesses",
                "ReachabilityCore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "reach",
            dependencies: [
                "ReachCommands", "ReachMonitorCommands", .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strictSettings,
            linkerSettings: shippedExecutableLinking
        ),
        // The transfer commands (get, upload), with async-http-client, NIO and BoringSSL, for
        // reach-daemon's whole command tree, which runs and lists them.
        .target(
            name: "ReachTransferCommands",
            dependencies: [
                "ReachCommands",
                "Reachability",
                "ReachabilityCore",
                "ReachabilityTransfers",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strictSettings
        ),
        // sd_notify (READY, STATUS, WATCHDOG, STOPPING) without libsystemd: a datagram to
        // $NOTIFY_SOCKET.
        .target(name: "ReachabilitySystemd", swiftSettings: strictSettings),
        // Fleet metrics kept in memory (swift-metrics over a Prometheus registry): a scrape
        // reads no sysfs and asks netlink nothing.
        .target(
            name: "ReachabilityMetrics",
            dependencies: [
                "Reachability",
                "ReachabilityCore",
                "ReachabilityTransfers",
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ],
            swiftSettings: strictSettings
        ),
        // HTTP/1.1 on a Unix socket (peer credentials checked per connection) and on TCP, and
        // its client: the daemon's control API and metrics endpoint.
        .target(
            name: "ReachabilityControl",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ],
            swiftSettings: strictSettings
        ),
        // The daemon: a persistent job queue (SQLite) in front of the transfer engine, its
        // control API, metrics and systemd integration, composed as one service.
        .target(
            name: "ReachabilityDaemon",
            dependencies: [
                "Reachability",
                "ReachabilityLinux",
                "ReachabilityProcesses",
                "ReachabilityCore",
                "ReachabilityTransfers",
                "ReachabilitySystemd",
                "ReachabilityMetrics",
                "ReachabilityControl",
                "ReachabilitySQLite",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        // `reach daemon`, `reach queue` and `reach budget`: the service and its client. It also
        // carries every other command's definition: `reach --help`, `reach help CMD`, the
        // completion scripts and the man pages come from its whole tree.
        .executableTarget(
            name: "reach-daemon",
            dependencies: [
                "ReachCommands",
                "ReachMonitorCommands",
                "ReachTransferCommands",
                "Reachability",
                "ReachabilityCore",
                "ReachabilityDaemon",
                "ReachabilityValidation",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings,
            linkerSettings: shippedExecutableLinking
        ),
        // Connectivity validation's real prober (captive-portal detection): HTTP, HTTPS and the
        // RFC 8908 API over NIO, out of the judged interface. Apart, so the monitor builds without NIO.
        .target(
            name: "ReachabilityValidation",
            dependencies: [
                "Reachability",
                "ReachabilityCore",
                "ReachabilityLinux",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                // TLSUserEvent: when the handshake is done, to say which step a timeout cut short.
                .product(name: "NIOTLS", package: "swift-nio"),
            ],
            swiftSettings: strictSettings
        ),
        // Examples an adopter can copy: each builds with the package, the tests run them, and
        // the README's library snippets are taken from them (scripts/check-snippets.py).
        .executableTarget(
            name: "example-path-changes", dependencies: ["Reachability"], path: "Sources/Examples/PathChanges",
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "example-gated-job", dependencies: ["Reachability"], path: "Sources/Examples/GatedJob", swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "example-validated-path", dependencies: ["Reachability", "ReachabilityValidation"],
            path: "Sources/Examples/ValidatedPath", swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "example-engine-download", dependencies: ["ReachabilityTransfers"], path: "Sources/Examples/EngineDownload",
            swiftSettings: strictSettings
        ),
        // Fakes, sysfs fixture trees, private network namespaces: for tests and adopters.
        .target(
            name: "ReachabilityTestKit",
            dependencies: ["ReachabilityCore", "ReachabilityLinux", "Reachability", "CGNULibc"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "ReachabilityCoreTests",
            dependencies: ["ReachabilityCore"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "ReachabilityLinuxTests",
            dependencies: ["ReachabilityLinux", "ReachabilityCore", "ReachabilityTestKit", "CNetlink"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "ReachabilityTests",
            dependencies: ["Reachability", "ReachabilityProcesses", "ReachabilityCore", "ReachabilityLinux", "ReachabilityTestKit"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "ReachabilityTransfersTests",
            dependencies: ["ReachabilityTransfers", "Reachability", "ReachabilityCore", "ReachabilityTestKit", "reach-testserver"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "ReachCLITests",
            dependencies: [
                "ReachabilityCore", "ReachabilityLinux", "ReachabilityTestKit", "reach", "reach-testserver", "reach-daemon",
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "ReachabilitySystemdTests",
            dependencies: ["ReachabilitySystemd", "ReachabilityTestKit"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "ReachabilityMetricsTests",
            dependencies: ["ReachabilityMetrics", "Reachability", "ReachabilityCore", "ReachabilityLinux", "ReachabilityTestKit"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "ReachabilityControlTests",
            dependencies: ["ReachabilityControl", "ReachabilityTestKit"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "ReachabilityDaemonTests",
            dependencies: [
                "ReachabilityDaemon", "ReachabilityTransfers", "ReachabilityControl", "Reachability", "ReachabilityCore", "ReachabilityTestKit", "reach",
                "reach-daemon", "reach-testserver", "ReachabilitySQLite",
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "ReachabilityValidationTests",
            dependencies: ["ReachabilityValidation", "Reachability", "ReachabilityCore", "ReachabilityLinux", "ReachabilityTestKit"],
            swiftSettings: strictSettings
        ),
    ],
    swiftLanguageModes: [.v6]
)

// libFuzzer targets (scripts/fuzz/run.sh), declared only when REACH_FUZZ=1: a plain `swift build`
// never sees them, and they need `--sanitize fuzzer`, without which they have no `main`.
//
// They live in this manifest rather than in a package of their own under scripts/fuzz because
// the route-message parsers are not public: `package` access reaches them from here (as it
// does from the test targets), but not from another package, which would need them made
// public or `@testable` imports with `-enable-testing` in an optimized build.
if Context.environment["REACH_FUZZ"] == "1" {
    let fuzzTargets: [(name: String, dependencies: [Target.Dependency])] = [
        ("FuzzConfiguration", ["ReachabilityCore"]),
        ("FuzzRuleSelector", ["ReachabilityCore"]),
        ("FuzzGlob", ["ReachabilityCore"]),
        ("FuzzDHCPLease", ["ReachabilityCore"]),
        ("FuzzRouteMessage", ["ReachabilityLinux", "CNetlink"]),
        ("FuzzHTTPHeader", ["ReachabilityCore"]),
        ("FuzzContentRange", ["ReachabilityCore"]),
        ("FuzzByteCount", ["ReachabilityCore"]),
        ("FuzzProbeResponse", ["ReachabilityCore"]),
        ("FuzzDNSMessage", ["ReachabilityCore"]),
        ("FuzzInformationElements", ["ReachabilityCore"]),
        ("FuzzNl80211", ["ReachabilityCore"]),
        ("FuzzGioPathLine", ["GioReachParsing"]),
        ("FuzzBudget", ["ReachabilityCore"]),
        ("FuzzBudgetLedger", ["ReachabilityCore"]),
    ]
    for (name, dependencies) in fuzzTargets {
        package.targets.append(.executableTarget(
            name: name,
            dependencies: dependencies,
            path: "scripts/fuzz/Sources/\(name)",
            swiftSettings: strictSettings
        ))
    }
}
