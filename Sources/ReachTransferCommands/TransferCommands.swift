package import ArgumentParser

/// The transfer commands, for the executable that carries them: reach-daemon, whose whole
/// command tree runs them and lists them (help, completions, man pages).
package enum TransferCommands {
    /// `get` and `upload`.
    package static let all: [any ParsableCommand.Type] = [GetCommand.self, UploadCommand.self]
}
