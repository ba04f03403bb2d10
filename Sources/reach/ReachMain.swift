import ArgumentParser
import ReachCommands
import ReachMonitorCommands

/// `reach get …`, `reach upload …`, `reach daemon …`, `reach queue …` and `reach budget …` run
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
