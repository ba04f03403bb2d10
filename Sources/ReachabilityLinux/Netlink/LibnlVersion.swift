internal import CNetlink

/// The libnl this process runs against (its exported `nl_ver_*` values, not the headers it was
/// built with): for `reach --version` and bug reports.
package enum LibnlVersion {
    package static var text: String { "\(nl_ver_maj).\(nl_ver_min).\(nl_ver_mic)" }
}
