import ArgumentParser
import ReachCommands
import ReachMonitorCommands

/// `reach get …` and `reach upload …` run reach-transfer, `reach daemon …` and `reach queue …`
/// reach-daemon (the HTTP stack lives there, so the monitor commands do not map it); so does
/// a monitor command given a connectivity probe (see `GlobalOptions.monitor`). Everything else
/// is parsed here.
@main
enum ReachMain {
    static func main() async {
        if let external = ExternalCommand(arguments: CommandLine.arguments) { external.exec() }
        await Reach.main()
    }
}
