import NIOCore
import NIOHTTP1

/// An accepted connection with its HTTP pipeline set up, and who is at the other end.
struct AcceptedConnection: Sendable {
    /// Outbound `Never`: responses are written on the channel itself, where each write can be
    /// awaited to completion (``ResponseWriter``); and a connection dropped unserved at
    /// shutdown has no unfinished writer to trip NIO's precondition.
    let channel: NIOAsyncChannel<HTTPServerRequestPart, Never>
    /// From `SO_PEERCRED` on a Unix socket; nil on TCP or when the kernel would not say.
    let peer: PeerCredentials?

    /// Sets up an accepted channel (on its event loop). Nil for a connection over the limit,
    /// or one that could not be set up (it closed meanwhile): either is closed at once. Never
    /// fails: NIO would drop a failed connection without closing it.
    static func initialize(
        _ channel: any Channel, limits: ControlServer.Limits, registry: ConnectionRegistry, readsCredentials: Bool
    ) -> EventLoopFuture<Self?> {
        let peer = readsCredentials ? PeerCredentials.read(from: channel) : channel.eventLoop.makeSucceededFuture(nil)
        return peer.flatMapThrowing { peer -> Self? in
            let activity = ConnectionActivity()
            // Admitted by its user's share: the credentials come first.
            guard registry.admit(channel, uid: peer?.uid, activity: activity) else { return nil }
            return try configure(channel, limits: limits, peer: peer, activity: activity)
        }.recover { _ in
            channel.close(promise: nil)
            return nil
        }
    }

    /// NIO's HTTP/1.1 server handlers (parser with the header bound, pipelining so responses go
    /// out in request order, 400 and close on malformed requests), then the idle timeout, then
    /// the async channel the server reads.
    private static func configure(
        _ channel: any Channel, limits: ControlServer.Limits, peer: PeerCredentials?, activity: ConnectionActivity
    ) throws -> Self {
        var headerLimits = NIOHTTPDecoderLimitConfiguration()
        headerLimits.maxHeaderFieldSize = limits.maxHeaderBytes
        headerLimits.maxHeaderListSize = limits.maxHeaderBytes
        let pipeline = channel.pipeline.syncOperations
        try pipeline.configureHTTPServerPipeline(
            withErrorHandling: true, withEncoderConfiguration: HTTPResponseEncoder.Configuration(),
            withDecoderLimitConfiguration: headerLimits
        )
        // After the HTTP handlers, so only whole messages count as activity: a client
        // trickling a request head byte by byte is idle.
        try pipeline.addHandler(IdleStateHandler(allTimeout: TimeAmount(limits.idleTimeout)))
        try pipeline.addHandler(IdleConnectionCloser(activity: activity))
        let wrapped = try NIOAsyncChannel<HTTPServerRequestPart, Never>(wrappingChannelSynchronously: channel)
        return AcceptedConnection(channel: wrapped, peer: peer)
    }
}
