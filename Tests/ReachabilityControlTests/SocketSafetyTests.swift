import Foundation
import ReachabilityControl
import Testing

@Suite(.timeLimit(.minutes(1)))
struct SocketSafetyTests {
    private func startFailure(at path: String) async throws -> ControlServerError {
        let server = recordingServer(path)
        return try #require(await #expect(throws: ControlServerError.self) { try await server.run() })
    }

    @Test func createsTheDirectory0700AndTheSocket0600() async throws {
        let sandbox = try SocketSandbox()
        defer { sandbox.remove() }
        try await withServer(recordingServer(sandbox.socketPath)) { _ in
            #expect(permissions(of: sandbox.path("run")) == 0o700)
            #expect(fileType(of: sandbox.socketPath) == S_IFSOCK)
            #expect(permissions(of: sandbox.socketPath) == 0o600)
        }
    }

    @Test func acceptsAnExisting0755DirectoryAndLeavesItsMode() async throws {
        let sandbox = try SocketSandbox()
        defer { sandbox.remove() }
        let directory = try sandbox.makeDirectory("run", mode: 0o755)
        try await withServer(recordingServer(directory + "/reach.sock")) { _ in
            #expect(permissions(of: directory) == 0o755)
            #expect(permissions(of: directory + "/reach.sock") == 0o600)
        }
    }

    @Test func refusesASymlinkedDirectory() async throws {
        let sandbox = try SocketSandbox()
        defer { sandbox.remove() }
        let real = try sandbox.makeDirectory("real", mode: 0o700)
        let link = sandbox.path("run")
        #expect(symlink(real, link) == 0)
        let error = try await startFailure(at: link + "/reach.sock")
        #expect(error.code == .unsafeDirectory)
        #expect(error.description.contains(link))
        #expect(error.description.contains("symbolic link"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: real).isEmpty)
    }

    @Test func refusesAGroupWritableDirectory() async throws {
        let sandbox = try SocketSandbox()
        defer { sandbox.remove() }
        let directory = try sandbox.makeDirectory("run", mode: 0o770)
        let error = try await startFailure(at: directory + "/reach.sock")
        #expect(error.code == .unsafeDirectory)
        #expect(error.description.contains(directory))
        #expect(error.description.contains("writable by its group or others (mode 0770)"))
        #expect(fileType(of: directory + "/reach.sock") == nil)
    }

    @Test func refusesADirectoryWhoseParentIsMissing() async throws {
        let sandbox = try SocketSandbox()
        defer { sandbox.remove() }
        let error = try await startFailure(at: sandbox.path("missing/run/reach.sock"))
        #expect(error.code == .unsafeDirectory)
        #expect(error.description.contains("parent directory does not exist"))
    }

    @Test func refusesARegularFileAtTheSocketPathAndLeavesIt() async throws {
        let sandbox = try SocketSandbox()
        defer { sandbox.remove() }
        let directory = try sandbox.makeDirectory("run", mode: 0o700)
        let path = directory + "/reach.sock"
        try sandbox.write("run/reach.sock", "precious")
        let error = try await startFailure(at: path)
        #expect(error.code == .pathOccupied)
        #expect(error.description.contains(path))
        #expect(error.description.contains("a regular file"))
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "precious")
    }

    @Test func refusesASymlinkAtTheSocketPathAndLeavesItAndItsTarget() async throws {
        let sandbox = try SocketSandbox()
        defer { sandbox.remove() }
        let directory = try sandbox.makeDirectory("run", mode: 0o700)
        try sandbox.write("target", "precious")
        let path = directory + "/reach.sock"
        #expect(symlink(sandbox.path("target"), path) == 0)
        let error = try await startFailure(at: path)
        #expect(error.code == .pathOccupied)
        #expect(error.description.contains("a symbolic link"))
        #expect(fileType(of: path) == S_IFLNK)
        #expect(try String(contentsOfFile: sandbox.path("target"), encoding: .utf8) == "precious")
    }

    @Test func refusesADirectoryAtTheSocketPath() async throws {
        let sandbox = try SocketSandbox()
        defer { sandbox.remove() }
        _ = try sandbox.makeDirectory("run", mode: 0o700)
        let path = try sandbox.makeDirectory("run/reach.sock", mode: 0o700)
        let error = try await startFailure(at: path)
        #expect(error.code == .pathOccupied)
        #expect(fileType(of: path) == S_IFDIR)
    }

    @Test func replacesAStaleSocket() async throws {
        let sandbox = try SocketSandbox()
        defer { sandbox.remove() }
        _ = try sandbox.makeDirectory("run", mode: 0o700)
        try makeStaleSocket(at: sandbox.socketPath)
        try await withServer(recordingServer(sandbox.socketPath)) { _ in
            let connection = try await RawHTTPConnection.unix(sandbox.socketPath)
            try await connection.send(httpRequest("GET", "/v1/ping"))
            #expect(try await connection.readResponse()?.status == 200)
            #expect(permissions(of: sandbox.socketPath) == 0o600)
        }
    }

    @Test func refusesWhenAnotherServerListens() async throws {
        let sandbox = try SocketSandbox()
        defer { sandbox.remove() }
        try await withServer(recordingServer(sandbox.socketPath)) { _ in
            let error = try await startFailure(at: sandbox.socketPath)
            #expect(error.code == .alreadyListening)
            #expect(error.description == "another daemon is listening on \(sandbox.socketPath)")
            // The first server still has its socket and answers on it.
            let connection = try await RawHTTPConnection.unix(sandbox.socketPath)
            try await connection.send(httpRequest("GET", "/v1/ping"))
            #expect(try await connection.readResponse()?.status == 200)
        }
    }

    @Test func refusesAPathLongerThanSunPath() async throws {
        let sandbox = try SocketSandbox()
        defer { sandbox.remove() }
        let path = sandbox.path(String(repeating: "s", count: 120))
        let error = try await startFailure(at: path)
        #expect(error.code == .invalidPath)
        #expect(error.description.contains("at most 107"))
    }
}
