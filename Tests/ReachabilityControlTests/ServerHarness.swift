import Foundation
import ReachabilityControl
import ReachabilityTestKit

/// Runs `server` while `body` runs with the address it bound, then cancels it and waits for
/// `run()` to return (a server that does not stop hangs the test until its time limit).
func withServer<T: Sendable>(_ server: ControlServer, _ body: (ControlServer.Address) async throws -> T) async throws -> T {
    let listening = Mailbox<Result<ControlServer.Address, any Error>>()
    return try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask {
            do {
                try await server.run { listening.put(.success($0)) }
            } catch {
                listening.put(.failure(error))
                throw error
            }
        }
        guard let bound = await listening.take() else { throw TestFailure("cancelled before the server listened") }
        let result = try await body(try bound.get())
        group.cancelAll()
        try await group.waitForAll()
        return result
    }
}

/// A server on the Unix socket `path`, for the daemon's user or root, with a
/// ``recordingHandler(_:)``.
func recordingServer(_ path: String, _ requests: Mailbox<ControlRequest> = Mailbox()) -> ControlServer {
    ControlServer(address: .unix(path), authorize: ControlServer.sameUserOrRoot(), handler: recordingHandler(requests))
}

/// A handler that hands each request to `requests` and answers 200 with `{"path": …}`.
func recordingHandler(_ requests: Mailbox<ControlRequest>) -> @Sendable (ControlRequest) async -> ControlResponse {
    { request in
        requests.put(request)
        return .json(status: 200, Array("{\"path\":\"\(request.path)\"}".utf8))
    }
}

/// A temporary directory for sockets, with the conveniences the tests need.
struct SocketSandbox {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory()
    }

    /// The sandbox directory itself.
    var root: String { directory.path }

    /// Writes a file at `relative`.
    func write(_ relative: String, _ contents: String) throws {
        try directory.write(relative, contents)
    }

    /// `relative` inside the sandbox.
    func path(_ relative: String) -> String {
        directory.path + "/" + relative
    }

    /// The path of a socket in a directory the server creates: `<sandbox>/run/reach.sock`.
    var socketPath: String { path("run/reach.sock") }

    func makeDirectory(_ relative: String, mode: mode_t) throws -> String {
        let full = path(relative)
        guard mkdir(full, mode) == 0, chmod(full, mode) == 0 else { throw TestFailure("mkdir \(full): \(String(cString: strerror(errno)))") }
        return full
    }

    func remove() {
        directory.remove()
    }
}

/// The permission bits of `path` (not following a symbolic link); nil when nothing is there.
func permissions(of path: String) -> mode_t? {
    var info = stat()
    guard lstat(path, &info) == 0 else { return nil }
    return info.st_mode & 0o7777
}

/// The file type bits of `path` (not following a symbolic link); nil when nothing is there.
func fileType(of path: String) -> mode_t? {
    var info = stat()
    guard lstat(path, &info) == 0 else { return nil }
    return info.st_mode & S_IFMT
}

/// Leaves a socket file at `path` with nobody listening, as a crashed daemon does.
func makeStaleSocket(at path: String) throws {
    let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(descriptor) }
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8)) }
    let result = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
    }
    guard result == 0 else { throw TestFailure("bind \(path): \(String(cString: strerror(errno)))") }
}

/// A request with a `Host` header and the given extra lines and body.
func httpRequest(_ method: String, _ target: String, headers: [String] = [], body: String? = nil) -> String {
    var lines = ["\(method) \(target) HTTP/1.1", "Host: localhost"] + headers
    if let body { lines.append("Content-Length: \(body.utf8.count)") }
    return lines.joined(separator: "\r\n") + "\r\n\r\n" + (body ?? "")
}
