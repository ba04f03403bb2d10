import FoundationEssentials

/// A directory under the system's temporary directory, removed by ``remove()``.
public struct TemporaryDirectory: Sendable {
    public let path: String

    public init() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("reach-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        path = url.path
    }

    /// Writes `contents` to `relativePath`, creating directories on the way.
    public func write(_ relativePath: String, _ contents: String) throws {
        let url = URL(fileURLWithPath: path).appendingPathComponent(relativePath)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(contents.utf8).write(to: url)
    }

    public func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }
}
