import Glibc
public import ReachabilityCore

extension ConfigurationFile {
    /// Reads and parses a configuration file.
    public static func load(path: String) throws(ConfigurationFileError) -> ConfigurationFile {
        try ConfigurationFile(parsing: try readText(path: path), name: path)
    }

    /// Reads a configuration file's text (UTF-8).
    public static func readText(path: String) throws(ConfigurationFileError) -> String {
        guard let file = fopen(path, "r") else {
            throw ConfigurationFileError(file: path, line: 0, text: "", reason: "cannot read: \(String(cString: strerror(errno)))")
        }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = fread(&buffer, 1, buffer.count, file)
            if count == 0 { break }
            bytes.append(contentsOf: buffer[0..<count])
        }
        if ferror(file) != 0 {
            throw ConfigurationFileError(file: path, line: 0, text: "", reason: "cannot read: \(String(cString: strerror(errno)))")
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw ConfigurationFileError(file: path, line: 0, text: "", reason: "not UTF-8 text")
        }
        return text
    }
}
