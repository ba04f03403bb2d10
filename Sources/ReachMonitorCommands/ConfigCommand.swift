import ArgumentParser
import ReachCommands
import Reachability
import ReachabilityCore

struct ConfigCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "config",
        abstract: "Work with configuration files.",
        subcommands: [Check.self])

    struct Check: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Validate a configuration file.",
            discussion: "Prints every invalid line as FILE:LINE: … and exits 64 if there is one; exits 0 when the file is valid.")

        @Argument(help: ArgumentHelp("The file to check.", valueName: "FILE"))
        var file: String

        func run() async throws {
            let text: String
            do {
                text = try ConfigurationFile.readText(path: file)
            } catch {
                printError("reach: \(error)")
                throw ExitCode(64)
            }
            let problems = ConfigurationFile.problems(in: text, name: file)
            guard problems.isEmpty else {
                for problem in problems { printError(problem.description) }
                throw ExitCode(64)
            }
            let parsed = try ConfigurationFile(parsing: text, name: file)
            let (rules, budgets) = (parsed.rules.count, parsed.budgets.count)
            let budgetText = budgets == 0 ? "" : ", \(budgets) budget\(budgets == 1 ? "" : "s")"
            printLine("\(file): \(rules) rule\(rules == 1 ? "" : "s")\(budgetText), valid")
        }
    }
}
