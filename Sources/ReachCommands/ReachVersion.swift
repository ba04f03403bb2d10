import ReachabilityLinux

/// What both executables print for `--version`: the package version and the libnl they run
/// against.
package enum ReachVersion {
    package static let package = "0.2.0"
    package static var text: String { "\(package) (libnl \(LibnlVersion.text))" }
}
