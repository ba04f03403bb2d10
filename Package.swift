// swift-tools-version: 6.1
import PackageDescription

// Upcoming features every target opts into: explicit `any`, internal imports by default
// (so no module re-exports libnl by accident), and member import visibility.
let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "Reachability",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "Reachability", targets: ["Reachability"]),
        .library(name: "ReachabilityCore", targets: ["ReachabilityCore"]),
        .library(name: "ReachabilityTestKit", targets: ["ReachabilityTestKit"]),
        .executable(name: "reach", targets: ["reach"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-async-algorithms", from: "1.1.4"),
    ],
    targets: [
        // libnl-3 / libnl-route-3 and the kernel headers; imported only by ReachabilityLinux.
        .systemLibrary(
            name: "CNetlink",
            pkgConfig: "libnl-route-3.0",
            providers: [.apt(["libnl-3-dev", "libnl-route-3-dev"])]
        ),
        // Pure values and decisions: no Glibc, no Foundation, no I/O.
        .target(name: "ReachabilityCore", swiftSettings: strictSettings),
        // The only importer of CNetlink: netlink thread, dumps, route lookups, sysfs, namespaces.
        .target(
            name: "ReachabilityLinux",
            dependencies: ["ReachabilityCore", "CNetlink"],
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
        .executableTarget(
            name: "reach",
            dependencies: [
                "Reachability",
                "ReachabilityCore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strictSettings
        ),
        // Fakes, sysfs fixture trees, private network namespaces: for tests and adopters.
        .target(
            name: "ReachabilityTestKit",
            dependencies: ["ReachabilityCore", "ReachabilityLinux", "Reachability"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "ReachabilityCoreTests",
            dependencies: ["ReachabilityCore"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "ReachabilityLinuxTests",
            dependencies: ["ReachabilityLinux", "ReachabilityCore", "ReachabilityTestKit"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "ReachabilityTests",
            dependencies: ["Reachability", "ReachabilityCore", "ReachabilityLinux", "ReachabilityTestKit"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "ReachCLITests",
            dependencies: ["ReachabilityCore", "ReachabilityLinux", "ReachabilityTestKit", "reach"],
            swiftSettings: strictSettings
        ),
    ],
    swiftLanguageModes: [.v6]
)
