import Glibc

/// `posix_spawnp` with what every child a test starts needs: default signal handling and no
/// signal blocked (the test runner blocks SIGTERM, and a child inherits the mask), and, when
/// asked, a process group of its own (to signal it whole). `actions` say where its descriptors go.
enum ChildSpawn {
    /// Starts `arguments[0]` (looked up in `PATH`); its pid.
    ///
    /// - Throws: ``TestNamespaceError`` when `posix_spawnp` fails (no such program, for one).
    static func spawn(_ arguments: [String], actions: inout posix_spawn_file_actions_t, newProcessGroup: Bool) throws -> pid_t {
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        var all = sigset_t()
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        var flags = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF
        if newProcessGroup {
            posix_spawnattr_setpgroup(&attributes, 0)
            flags |= POSIX_SPAWN_SETPGROUP
        }
        posix_spawnattr_setflags(&attributes, Int16(flags))
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var child: pid_t = 0
        let status = posix_spawnp(&child, arguments[0], &actions, &attributes, &argv, environ)
        guard status == 0 else {
            throw TestNamespaceError(message: "cannot start \(arguments[0]): \(String(cString: strerror(status)))")
        }
        return child
    }
}
