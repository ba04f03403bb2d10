import Foundation
import Testing

/// One help for every command: `reach --help` lists the commands other executables carry out,
/// `reach help` reaches nested commands, and the completion scripts know every command.
struct ReachHelpTests {
    static let commands = ["status", "watch", "interfaces", "wait", "run", "config", "get", "upload", "daemon", "queue", "budget"]

    @Test(arguments: [["--help"], ["-h"], ["help"]])
    func topLevelHelpListsEveryCommand(arguments: [String]) throws {
        let result = try reach(arguments)
        #expect(result.status == 0)
        let listed = Set(result.stdout.split(separator: "\n").compactMap { line -> String? in
            let words = line.split(separator: " ")
            return line.hasPrefix("  ") && !line.hasPrefix("   ") ? words.first.map(String.init) : nil
        })
        for command in Self.commands {
            #expect(listed.contains(command) || listed.contains("\(command) (default)"), "\(arguments): no \(command) in\n\(result.stdout)")
        }
        #expect(result.stdout.contains("Exit codes"))
    }

    /// `reach help queue add` is the help of `queue add`, not the top level's.
    @Test(arguments: [
        (["help", "queue", "add"], "reach queue add"), (["help", "budget", "set"], "reach budget set"),
        (["help", "get"], "reach get"), (["help", "watch"], "reach watch"), (["queue", "add", "--help"], "reach queue add"),
    ])
    func nestedHelpIsTheCommandsOwn(arguments: [String], usage: String) throws {
        let result = try reach(arguments)
        #expect(result.status == 0)
        #expect(result.stdout.contains("USAGE: \(usage)"), "\(arguments):\n\(result.stdout)")
    }

    /// The completion scripts come from the whole tree: they complete the daemon's nested commands
    /// and the transfer commands' options.
    @Test(arguments: ["bash", "zsh", "fish"])
    func completionScriptsKnowEveryCommand(shell: String) throws {
        let result = try reach(["--generate-completion-script", shell])
        #expect(result.status == 0)
        for word in ["queue", "budget", "snooze", "max-cellular", "count-interval", "all-changes"] {
            #expect(result.stdout.contains(word), "\(shell): no \(word)")
        }
    }

    /// The tree the man pages are generated from is the whole one.
    @Test func dumpedHelpHasEveryCommand() throws {
        let result = try reach(["--experimental-dump-help"])
        #expect(result.status == 0)
        let tree = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        let command = tree?["command"] as? [String: Any]
        let names = (command?["subcommands"] as? [[String: Any]])?.compactMap { $0["commandName"] as? String } ?? []
        #expect(Set(Self.commands).isSubset(of: Set(names)), "\(names)")
    }

    /// `reach watch | head -1` ends as soon as `head` exits, not at the next change.
    @Test func watchEndsWhenItsReaderGoesAway() throws {
        // No change happens on its own during the test; without the reader watch this never ends.
        let result = try shell("set -o pipefail; timeout 30 \(reachBinary) watch | head -1; echo \"status ${PIPESTATUS[0]}\"")
        #expect(result.stdout.hasSuffix("status 0\n"), "\(result.stdout) \(result.stderr)")
        #expect(result.stdout.split(separator: "\n").count == 2)
    }
}
