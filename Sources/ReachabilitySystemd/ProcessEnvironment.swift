import Glibc

/// The few process-environment operations this module needs, over `getenv` and `unsetenv`.
/// Neither is safe while another thread changes the environment: call at startup.
enum ProcessEnvironment {
    /// The value of `name`, or `nil` when it is unset.
    static func value(of name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }

    /// Removes `name` from the environment, so child processes do not inherit it.
    static func remove(_ name: String) {
        unsetenv(name)
    }
}
