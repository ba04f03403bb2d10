import Glibc

/// Starts a command as the leader of a new process group (so that every signal can go to all
/// it started), with an empty signal mask and default signal actions (what this process blocks
/// or catches is no business of the command's).
enum ProcessSpawn {
    /// Starts `arguments` (the first looked up on PATH). Signals in `inheritedSignals` keep the
    /// disposition they have here (ignored ones stay ignored: `nohup`). With `terminal`, the
    /// new group becomes the terminal's foreground group before the command runs.
    static func spawn(_ arguments: [String], inheritedSignals: Set<Int32>, terminal: ControllingTerminal?) throws(CommandSpawnError) -> pid_t {
        guard let program = arguments.first else { throw CommandSpawnError(command: "", errno: EINVAL) }
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        let lendsInChild = terminal.map { $0.isOurs && TerminalSpawnAction.addForeground != nil } ?? false
        var result = attempt(program, &argv, inheritedSignals: inheritedSignals, foregroundIn: lendsInChild ? terminal : nil)
        if case .failure = result, lendsInChild {
            // The terminal step failed in the child (the terminal changed hands meanwhile):
            // start it without, as below.
            result = attempt(program, &argv, inheritedSignals: inheritedSignals, foregroundIn: nil)
        }
        let pid = try result.get()
        // Lent from here, the command may touch the terminal first and stop on SIGTTIN; the
        // group's watcher then continues it (`ProcessGroup.relayJobStop`).
        if let terminal, !lendsInChild { terminal.lend(to: pid) }
        return pid
    }

    /// One `posix_spawnp`; with `terminal`, the child makes its group the foreground one.
    private static func attempt(
        _ program: String, _ argv: inout [UnsafeMutablePointer<CChar>?], inheritedSignals: Set<Int32>, foregroundIn terminal: ControllingTerminal?
    ) -> Result<pid_t, CommandSpawnError> {
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        posix_spawnattr_setpgroup(&attributes, 0)
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attributes, &empty)
        var defaults = sigset_t()
        sigfillset(&defaults)
        for signal in inheritedSignals { sigdelset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if let terminal, let addForeground = TerminalSpawnAction.addForeground {
            _ = addForeground(&actions, terminal.descriptor)
        }
        var pid = pid_t()
        let result = posix_spawnp(&pid, program, &actions, &attributes, &argv, environ)
        return result == 0 ? .success(pid) : .failure(CommandSpawnError(command: program, errno: result))
    }
}

/// glibc's `posix_spawn_file_actions_addtcsetpgrp_np` (2.35 and later), looked up at run time
/// so that older C libraries still build and run: it makes the child's group the terminal's
/// foreground group inside the child, before `exec`, so the command never starts without it.
enum TerminalSpawnAction {
    typealias Add = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32

    static let addForeground: Add? = {
        // RTLD_DEFAULT, a null handle: search the process's global symbols.
        guard let symbol = dlsym(nil, "posix_spawn_file_actions_addtcsetpgrp_np") else { return nil }
        return unsafeBitCast(symbol, to: Add.self)
    }()
}
