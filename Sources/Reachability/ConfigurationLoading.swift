public import ReachabilityCore
import ReachabilityLinux

extension ConfigurationFile {
    /// The largest configuration file read: far above any real rule list, far below what a
    /// mistaken `--config /dev/zero` or a log file would cost.
    public static let sizeLimit = 1 << 20

    /// Reads and parses a configuration file.
    public static func load(path: String) throws(ConfigurationFileError) -> ConfigurationFile {
        try ConfigurationFile(parsing: try readText(path: path), name: path)
    }

    /// Reads a configuration file's text: a regular file of at most ``sizeLimit`` bytes of UTF-8.
    public static func readText(path: String) throws(ConfigurationFileError) -> String {
        let bytes: [UInt8]
        do {
            bytes = try FileSystem.readRegularFile(path, limit: sizeLimit)
        } catch {
            throw ConfigurationFileError(file: path, line: 0, text: "", reason: "cannot read: \(error.reason)")
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw ConfigurationFileError(file: path, line: 0, text: "", reason: "not UTF-8 text")
        }
        return text
    }
}
