/// The package version both executables print with `--version`.
package enum ReachVersion {
    package static let package = "0.2.0"
    package static var text: String { package }
}
