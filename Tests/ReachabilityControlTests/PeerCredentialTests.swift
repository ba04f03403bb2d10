import Foundation
import ReachabilityControl
import Testing

@Suite(.timeLimit(.minutes(1)))
struct PeerCredentialTests {
    @Test func sameUserOrRootAllowsTheUserAndRootOnly() {
        let policy = ControlServer.sameUserOrRoot(euid: 1000)
        #expect(policy(PeerCredentials(pid: 1, uid: 1000, gid: 1000)))
        #expect(policy(PeerCredentials(pid: 1, uid: 0, gid: 0)))
        #expect(!policy(PeerCredentials(pid: 1, uid: 1001, gid: 1000)))
        #expect(!policy(nil))
    }

    @Test func refusedPeerGets403AndTheHandlerNeverRuns() async throws {
        let requests = Mailbox<ControlRequest>()
        let sandbox = try SocketSandbox()
        defer { sandbox.remove() }
        let server = ControlServer(
            address: .unix(sandbox.socketPath), authorize: { _ in false }, handler: recordingHandler(requests)
        )
        try await withServer(server) { _ in
            let connection = try await RawHTTPConnection.unix(sandbox.socketPath)
            try await connection.send(httpRequest("POST", "/v1/jobs", body: "{}") + httpRequest("GET", "/v1/ping"))
            let response = try #require(try await connection.readResponse())
            #expect(response.status == 403)
            #expect(response.text.contains("uid \(geteuid()) is not allowed"))
            #expect(try await connection.readToEnd().isEmpty)
        }
        #expect(requests.count == 0)
    }

    /// Another user's curl, through `setpriv`, is refused by the policy while root is served.
    ///
    /// The server's defaults already keep other users out before any HTTP: its directory is
    /// 0700 and its socket 0600, so nobody's `connect` fails with EACCES. To reach the second
    /// line of defence, the peer-credential check, this test opens both, for this test only:
    /// the sandbox and the socket directory are made 0711 (traversable, not listable or
    /// writable, which the server accepts) and the socket 0666 once bound.
    @Test(.enabled(if: geteuid() == 0 || isCI, "needs root to run curl as another user (CI runs as root)"))
    func anotherUserIsRefusedAndRootIsServed() async throws {
        try #require(geteuid() == 0, "this test needs root: it runs curl as uid 65534 with setpriv")
        let requests = Mailbox<ControlRequest>()
        let sandbox = try SocketSandbox()
        defer { sandbox.remove() }
        #expect(chmod(sandbox.root, 0o711) == 0)
        _ = try sandbox.makeDirectory("run", mode: 0o711)
        let server = ControlServer(
            address: .unix(sandbox.socketPath), authorize: ControlServer.sameUserOrRoot(), handler: recordingHandler(requests)
        )
        try await withServer(server) { _ in
            #expect(chmod(sandbox.socketPath, 0o666) == 0)
            let curl = try await runCommand([
                "setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                "curl", "-sS", "-w", "\n%{http_code}", "--unix-socket", sandbox.socketPath, "http://localhost/v1/ping",
            ])
            #expect(curl.status == 0, "curl: \(curl.output)")
            #expect(curl.output.hasSuffix("\n403"), "curl: \(curl.output)")
            #expect(curl.output.contains("uid 65534 is not allowed"), "curl: \(curl.output)")
            #expect(requests.count == 0)

            let root = try await withControlClient(socketPath: sandbox.socketPath) { try await $0.send(path: "/v1/ping") }
            #expect(root.status == 200)
            #expect(await requests.take()?.peer?.uid == 0)
        }
    }
}
