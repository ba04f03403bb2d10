import ArgumentParser
import ReachCommands

/// The transfer commands of `reach`, in their own executable so that the monitor commands do not
/// carry the HTTP stack. `reach get …` execs `reach-transfer get …` (and `reach upload …`,
/// `reach-transfer upload …`) with `argv[0]` "reach", so help and errors read as `reach get`.
@main
struct ReachTransfer: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reach",
        abstract: "Network-gated transfers (run as `reach get` and `reach upload`).",
        version: ReachVersion.text,
        subcommands: [GetCommand.self, UploadCommand.self]
    )
}
