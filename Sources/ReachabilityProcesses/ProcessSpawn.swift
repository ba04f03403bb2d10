import CGNULibc
import Glibc

/// Starts a command as the leader of a new process group (so that every signal can go to all
/// it started), with an empty signal mask and default signal actions (what this process blocks
/// or catches is no business of the command's).
enum ProcessSpawn {
    /// What the child gets besides its arguments.
    struct Setup: Sendable, Hashable {
        /// Signals that keep the disposition they have here (ignored ones stay ignored: `nohup`).
        var inheritedSignals: Set<Int32> = []
        /// The directory it starts in; nil: this process's.
        var workingDirectory: String?
        /// A descriptor its standard output and error go to (a ``CappedLog``'s pipe), with
        /// standard input from /dev/null and no other descriptor; nil: it inherits all three.
        var outputDescriptor: Int32?
        /// Its whole environment (`NAME=value`); nil: this process's.
        var environment: [String]?
        /// An open directory that `arguments[0]` (a plain name) is run from, instead of looking
        /// it up: the directory becomes the child's descriptor 3 and the program runs as
        /// `/proc/self/fd/3/NAME`, so the directory that was checked is the one it runs from,
        /// whatever has been renamed meanwhile (a script's interpreter opens it there, and its
        /// `$0` ends in its name). Needs ``outputDescriptor``.
        var directoryDescriptor: Int32?
    }

    /// Starts `arguments` (the first looked up on PATH) as `setup` says. With `terminal`, the
    /// new group becomes the terminal's foreground group before the command runs.
    static func spawn(_ arguments: [String], setup: Setup, terminal: ControllingTerminal?) throws(CommandSpawnError) -> pid_t {
        guard var program = arguments.first else { throw CommandSpawnError(command: "", errno: EINVAL) }
        if setup.directoryDescriptor != nil {
            guard !program.contains("/") else { throw CommandSpawnError(command: program, errno: EINVAL) }
            program = "/proc/self/fd/3/" + program
        }
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        let lendsInChild = terminal?.isOurs ?? false
        var result = attempt(program, &argv, setup: setup, foregroundIn: lendsInChild ? terminal : nil)
        if case .failure = result, lendsInChild {
            // The terminal step failed in the child (the terminal changed hands meanwhile):
            // start it without, as below.
            result = attempt(program, &argv, setup: setup, foregroundIn: nil)
        }
        let pid = try result.get()
        // Lent from here, the command may touch the terminal first and stop on SIGTTIN; the
        // group's watcher then continues it (`ProcessGroup.relayJobStop`).
        if let terminal, !lendsInChild { terminal.lend(to: pid) }
        return pid
    }

    /// One `posix_spawnp`; with `terminal`, the child makes its group the foreground one.
    private static func attempt(
        _ program: String, _ argv: inout [UnsafeMutablePointer<CChar>?], setup: Setup, foregroundIn terminal: ControllingTerminal?
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
        for signal in setup.inheritedSignals { sigdelset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if let terminal { reach_spawn_add_tcsetpgrp(&actions, terminal.descriptor) }
        if let output = setup.outputDescriptor {
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
            posix_spawn_file_actions_adddup2(&actions, output, 1)
            posix_spawn_file_actions_adddup2(&actions, output, 2)
            // Descriptors 0-2 only (and the program's directory as 3): never this process's sockets,
            // epoll instances or other clients' connections, close-on-exec or not. (`reach run`
            // in a shell passes on what the shell gave it, as any wrapper does.)
            if let directory = setup.directoryDescriptor {
                posix_spawn_file_actions_adddup2(&actions, directory, 3)
                reach_spawn_add_closefrom(&actions, 4)
            } else {
                reach_spawn_add_closefrom(&actions, 3)
            }
        }
        if let directory = setup.workingDirectory { reach_spawn_add_chdir(&actions, directory) }
        var pid = pid_t()
        let result: Int32
        if let environment = setup.environment {
            var envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup($0) } + [nil]
            defer { for pointer in envp { free(pointer) } }
            result = posix_spawnp(&pid, program, &actions, &attributes, &argv, &envp)
        } else {
            result = posix_spawnp(&pid, program, &actions, &attributes, &argv, environ)
        }
        return result == 0 ? .success(pid) : .failure(CommandSpawnError(command: program, errno: result))
    }
}
