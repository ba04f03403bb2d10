import Foundation
import ReachabilityControl
import Testing

@Suite(.timeLimit(.minutes(1)))
struct ClientErrorTests {
    private func sendFailure(to socketPath: String) async throws -> ControlClientError {
        try await withControlClient(socketPath: socketPath) { client in
            try #require(await #expect(throws: ControlClientError.self) { try await client.send(path: "/v1/ping") })
        }
    }

    @Test func missingSocketMeansNoDaemon() async throws {
        let sandbox = try SocketSandbox()
        defer { sandbox.remove() }
        let error = try await sendFailure(to: sandbox.socketPath)
        #expect(error.code == .daemonNotRunning)
        #expect(error.description == "no reach daemon is listening on \(sandbox.socketPath)")
    }

    @Test func socketWithoutListenerMeansNoDaemon() async throws {
        let sandbox = try SocketSandbox()
        defer { sandbox.remove() }
        _ = try sandbox.makeDirectory("run", mode: 0o700)
        try makeStaleSocket(at: sandbox.socketPath)
        let error = try await sendFailure(to: sandbox.socketPath)
        #expect(error.code == .daemonNotRunning)
        #expect(error.description.contains(sandbox.socketPath))
    }

    @Test func pathThatIsNotARequestPathIsInvalid() async throws {
        let error = try await withControlClient(socketPath: "/run/reach/reach.sock") { client in
            try #require(await #expect(throws: ControlClientError.self) { try await client.send(path: "v1/ping") })
        }
        #expect(error.code == .invalidRequest)
    }
}
