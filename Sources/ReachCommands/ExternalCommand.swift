import Glibc

/// A subcommand carried out by another executable installed next to `reach`, git's model:
/// `reach get URL` execs `reach-daemon get URL`, which carries the HTTP stack and every
/// command, and so do `upload`, `daemon`, `queue` and `budget`. Only the directory of `reach`
/// itself is searched (from `/proc/self/exe`), never `PATH`: a root-run `reach` must not run
/// whatever a `PATH` entry offers under that name.
package struct ExternalCommand {
    /// The executable with the HTTP stack, the daemon and every command's definition.
    static let wholeTree = "reach-daemon"

    static let commands: Set<String> = ["get", "upload", "daemon", "queue", "budget"]

    /// Help of any kind, the completion scripts and the command tree the man pages are made
    /// from come from reach-daemon, which carries every command's definition, so they list
    /// every command. Without reach-daemon (a build of `reach` alone) `reach` answers itself.
    static let wholeTreeRequests: Set<String> = [
        "help", "--help", "-h", "--experimental-dump-help", "--generate-completion-script", "---completion",
    ]

    /// What reach-daemon is given, `argv[0]` included.
    let arguments: [String]

    /// The command line `arguments` (this process's) when reach-daemon carries it out; nil
    /// when `reach` answers it itself.
    package init?(arguments: [String]) {
        guard arguments.count >= 2 else { return nil }
        let forwarded = Self.commands.contains(arguments[1])
            || ((Self.wholeTreeRequests.contains(arguments[1]) || arguments[1].hasPrefix("--generate-completion-script="))
                && Self.isInstalled)
        guard forwarded else { return nil }
        self.arguments = ["reach"] + arguments.dropFirst()
    }

    /// reach-daemon (next to this one) with `argv`, `argv[0]` included.
    package init(argv: [String]) {
        arguments = argv
    }

    /// Replaces this process; on failure prints why and exits 1.
    package func exec() -> Never {
        let directory = Self.ownDirectory() ?? "."
        let path = directory + "/" + Self.wholeTree
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        execv(path, &argv)
        let reason = String(cString: strerror(errno))
        for pointer in argv { free(pointer) }
        printError("reach: \(arguments.dropFirst().first ?? Self.wholeTree) needs \(path): \(reason)")
        exit(1)
    }

    /// reach-daemon is an executable file next to this one.
    static var isInstalled: Bool {
        guard let directory = ownDirectory() else { return false }
        return access(directory + "/" + wholeTree, X_OK) == 0
    }

    private static func ownDirectory() -> String? {
        PathNames.linkTarget("/proc/self/exe").map(PathNames.parent)
    }
}
