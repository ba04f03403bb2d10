@testable import ReachabilityTransfers
import Testing

/// Which connection pools exist after runs over which uplinks: a host asked for over another
/// uplink than last time keeps none of the pools it was reached through.
@Suite("HTTP clients: one pool per uplink")
struct HTTPClientsTests {
    private func url(_ text: String) throws -> TransferURL { try #require(TransferURL(text)) }
    private func uplinks(_ clients: HTTPClients) -> Set<String?> { Set(clients.poolKeys.map(\.uplink)) }

    @Test func aHostMovedToAnotherUplinkRetiresThePoolItCameThrough() async throws {
        let clients = HTTPClients(proxies: .none)
        let a = try url("http://a.example:8080/f.bin")
        let b = try url("http://b.example/f.bin")

        try clients.lease(for: a, uplink: "wwan0").release()
        #expect(uplinks(clients) == ["wwan0"])
        // Same host, same uplink: the pool is kept (its keep-alive connections are reused).
        try clients.lease(for: try url("http://A.example:8080/other"), uplink: "wwan0").release()
        #expect(uplinks(clients) == ["wwan0"])
        // Another host on the cellular pool, then `a` over Wi-Fi: the cellular pool goes, with
        // `b`'s connections in it; `b` next over cellular gets a new one.
        try clients.lease(for: b, uplink: "wwan0").release()
        try clients.lease(for: a, uplink: "wlan0").release()
        #expect(uplinks(clients) == ["wlan0"])
        try clients.lease(for: b, uplink: "wwan0").release()
        #expect(uplinks(clients) == ["wlan0", "wwan0"])
        // A run the kernel routes (nil) is an uplink of its own.
        try clients.lease(for: a, uplink: nil).release()
        #expect(uplinks(clients) == [nil, "wwan0"])
        try await clients.shutdownGracefully()
        #expect(clients.poolKeys.isEmpty)
    }

    /// A pool a run still holds is taken out at once (no new run gets it) and shut down when
    /// the last holder lets go; shutting everything down then does not shut it down twice.
    @Test func aRetiredPoolStaysUsableForTheRunsHoldingIt() async throws {
        let clients = HTTPClients(proxies: .none)
        let a = try url("http://a.example/f.bin")
        let held = try clients.lease(for: a, uplink: "wwan0")
        let moved = try clients.lease(for: a, uplink: "wlan0")
        #expect(uplinks(clients) == ["wlan0"])
        let again = try clients.lease(for: a, uplink: "wwan0")
        #expect(again.client !== held.client, "a run over cellular got the retired pool")
        held.release()
        moved.release()
        again.release()
        try await clients.shutdownGracefully()
    }

    /// A proxy is part of the pool: the same uplink through two proxies is two pools.
    @Test func eachProxyHasItsPoolsPerUplink() async throws {
        let clients = HTTPClients(proxies: ProxySettings(http: "http://127.0.0.1:3128", noProxy: ["direct.example"]))
        try clients.lease(for: try url("http://proxied.example/f"), uplink: "wlan0").release()
        try clients.lease(for: try url("http://direct.example/f"), uplink: "wlan0").release()
        #expect(clients.poolKeys.count == 2)
        #expect(Set(clients.poolKeys.map { $0.proxy == nil }) == [true, false])
        try await clients.shutdownGracefully()
    }
}
