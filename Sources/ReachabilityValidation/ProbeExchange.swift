import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

/// One request and its answer over an already connected socket, with NIO: TLS when asked,
/// NIO's HTTP/1 codec, and ``ProbeResponseHandler`` to collect a bounded answer.
enum ProbeExchange {
    /// What TLS needs: the round's context and the name to check (nil for an IP literal, whose
    /// certificate is checked against the address instead).
    struct TLS: Sendable {
        var context: NIOSSLContext
        var serverHostname: String?
    }

    /// Header limits well under NIO's 80 KiB defaults: a probe's answer has a few short headers.
    private static let limits: NIOHTTPDecoderLimitConfiguration = {
        var limits = NIOHTTPDecoderLimitConfiguration()
        limits.maxHeaderFieldSize = 16 * 1024
        limits.maxHeaderListSize = 32 * 1024
        limits.maxHeaderFieldCount = 128
        return limits
    }()

    /// Sends `request` over `socket` (which NIO owns from here on, and closes) and waits for
    /// the answer until `deadline`; cancelling the task closes the connection.
    static func fetch(
        socket: Int32, request: HTTPRequestHead, tls: TLS?, deadline: ProbeDeadline
    ) async -> Result<ProbeResponse, ProbeFailure> {
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        let promise = loop.makePromise(of: ProbeResponse.self)
        let nioDeadline = deadline.nioDeadline
        let timedOut: @Sendable (String) -> String = { deadline.timedOut($0) }
        let channel = ClientBootstrap(group: loop)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let pipeline = channel.pipeline.syncOperations
                    if let tls {
                        try pipeline.addHandler(NIOSSLClientHandler(context: tls.context, serverHostname: tls.serverHostname))
                    }
                    try pipeline.addHandler(HTTPRequestEncoder())
                    try pipeline.addHandler(ByteToMessageHandler(HTTPResponseDecoder(limitConfiguration: limits)))
                    try pipeline.addHandler(
                        ProbeResponseHandler(
                            request: request, promise: promise, deadline: nioDeadline, usesTLS: tls != nil, timedOut: timedOut))
                }
            }
            .withConnectedSocket(socket)
        channel.whenFailure { promise.fail(ProbeFailure(detail: ProbeResponseHandler.describe($0))) }
        return await withTaskCancellationHandler {
            do {
                return .success(try await promise.futureResult.get())
            } catch let failure as ProbeFailure {
                return .failure(failure)
            } catch {
                return .failure(ProbeFailure(detail: ProbeResponseHandler.describe(error)))
            }
        } onCancel: {
            promise.fail(ProbeFailure(detail: "cancelled"))
            channel.whenSuccess { $0.close(promise: nil) }
        }
    }
}
