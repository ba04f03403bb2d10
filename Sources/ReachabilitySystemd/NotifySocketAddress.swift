import Glibc

/// The address in `$NOTIFY_SOCKET`: a filesystem path (`/run/systemd/notify`) or an abstract
/// socket name (`@name`, sent with a leading NUL byte), as sd_notify(3)'s reference
/// implementation reads it. Other forms (relative paths, `vsock:`) are refused.
struct NotifySocketAddress: Sendable, Hashable {
    /// The bytes of `sun_path`: the path, or the abstract name with its `@` replaced by NUL.
    let pathBytes: [UInt8]

    /// `sun_path`'s capacity less one: the reference implementation keeps room for a NUL.
    static let maximumLength = MemoryLayout.size(ofValue: sockaddr_un().sun_path) - 1

    init?(_ text: String) {
        var bytes = Array(text.utf8)
        guard let first = bytes.first, first == UInt8(ascii: "/") || first == UInt8(ascii: "@"),
            bytes.count >= 2, bytes.count <= Self.maximumLength, !bytes.contains(0)
        else { return nil }
        if first == UInt8(ascii: "@") { bytes[0] = 0 }
        pathBytes = bytes
    }

    /// Calls `body` with the `sockaddr_un` and its length: the family and the path bytes only,
    /// no trailing NUL, which an abstract name must not have.
    func withSockaddr<Result>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> Result) -> Result {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: pathBytes) }
        let pathOffset = MemoryLayout<sockaddr_un>.offset(of: \.sun_path) ?? MemoryLayout<sa_family_t>.size
        let length = socklen_t(pathOffset + pathBytes.count)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, length) }
        }
    }
}
