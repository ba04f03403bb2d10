package import ArgumentParser

/// The transfer commands, for the executables that carry them: reach-transfer runs them, and
/// reach-daemon's whole command tree lists them (help, completions, man pages).
package enum TransferCommands {
    /// `get` and `upload`.
    package static let all: [any ParsableCommand.Type] = [GetCommand.self, UploadCommand.self]
}
