import Glibc

/// A filesystem path as a `sockaddr_un`, refused when it does not fit.
struct UnixSocketAddress {
    let path: String
    private let pathBytes: [UInt8]

    /// `sun_path`'s capacity less one for the terminating NUL: 107 bytes on Linux.
    static let maximumLength = MemoryLayout.size(ofValue: sockaddr_un().sun_path) - 1

    init(_ path: String) throws(ControlServerError) {
        let bytes = Array(path.utf8)
        guard !bytes.isEmpty, !bytes.contains(0), bytes.last != UInt8(ascii: "/") else {
            throw ControlServerError(.invalidPath, path: path, "\"\(path)\" is not a path for a Unix socket")
        }
        guard bytes.count <= Self.maximumLength else {
            throw ControlServerError(
                .invalidPath, path: path,
                "the socket path \(path) is \(bytes.count) bytes long; a Unix socket path has at most \(Self.maximumLength)"
            )
        }
        self.path = path
        pathBytes = bytes
    }

    /// The directory that will hold the socket: everything before the last `/` ("." for a bare
    /// name, "/" for a name at the root).
    var directory: String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        var parent = path[..<slash]
        while parent.last == "/" { parent = parent.dropLast() }
        return parent.isEmpty ? "/" : String(parent)
    }

    /// Calls `body` with the address and its length (the path plus its NUL).
    func withSockaddr<Result>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> Result) -> Result {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: pathBytes) }
        let pathOffset = MemoryLayout<sockaddr_un>.offset(of: \.sun_path) ?? MemoryLayout<sa_family_t>.size
        let length = socklen_t(pathOffset + pathBytes.count + 1)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, length) }
        }
    }
}
