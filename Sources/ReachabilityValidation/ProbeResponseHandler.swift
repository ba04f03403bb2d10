import NIOCore
import NIOHTTP1
import NIOSSL
import NIOTLS
import ReachabilityLinux

/// The end of a probe's pipeline: sends the request once the channel is active, keeps the
/// response head and at most ``ProbeResponse/bodyLimit`` body bytes, and completes the
/// promise exactly once (answer, error, early close or deadline), closing the channel then.
final class ProbeResponseHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias OutboundOut = HTTPClientRequestPart

    private let request: HTTPRequestHead
    private let promise: EventLoopPromise<ProbeResponse>
    private let deadline: NIODeadline
    private let timedOut: @Sendable (String) -> String
    private var response: ProbeResponse?
    private var handshaking: Bool
    private var sent = false
    private var done = false
    private var timer: Scheduled<Void>?

    /// `timedOut` words the deadline's failure for the step under way; `usesTLS` makes the
    /// first step the handshake.
    init(
        request: HTTPRequestHead, promise: EventLoopPromise<ProbeResponse>, deadline: NIODeadline, usesTLS: Bool,
        timedOut: @escaping @Sendable (String) -> String
    ) {
        self.request = request
        self.promise = promise
        self.deadline = deadline
        self.handshaking = usesTLS
        self.timedOut = timedOut
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let channel = context.channel
        timer = context.eventLoop.assumeIsolated().scheduleTask(deadline: deadline) { [self] in
            let step = handshaking ? "TLS handshake" : response == nil ? "waiting for the answer" : "reading the answer"
            finish(.failure(ProbeFailure(detail: timedOut(step))), channel: channel)
        }
        if context.channel.isActive { send(context: context) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
    }

    func channelActive(context: ChannelHandlerContext) {
        send(context: context)
        context.fireChannelActive()
    }

    /// The request goes out once; under TLS the handler before this one holds it until the
    /// handshake is done.
    private func send(context: ChannelHandlerContext) {
        guard !sent else { return }
        sent = true
        context.write(wrapOutboundOut(.head(request)), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case .handshakeCompleted? = event as? TLSUserEvent { handshaking = false }
        context.fireUserInboundEventTriggered(event)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !done else { return }
        switch unwrapInboundIn(data) {
        case .head(let head):
            let headers = head.headers.map { (name: $0.name, value: $0.value) }
            response = ProbeResponse(status: Int(head.status.code), reason: head.status.reasonPhrase, headers: headers)
        case .body(var buffer):
            guard var answer = response else { return }
            let room = ProbeResponse.bodyLimit - answer.body.count
            if let bytes = buffer.readBytes(length: min(room, buffer.readableBytes)) { answer.body += bytes }
            response = answer
            // Enough to judge: stop reading rather than take whatever a portal streams.
            if answer.body.count >= ProbeResponse.bodyLimit { finish(.success(answer), channel: context.channel) }
        case .end:
            if let answer = response { finish(.success(answer), channel: context.channel) }
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // A head with a broken or cut body is still an answer to judge (a portal's page, a 204).
        if let answer = response, !(error is ProbeFailure) {
            finish(.success(answer), channel: context.channel)
        } else {
            finish(.failure(ProbeFailure(detail: Self.describe(error))), channel: context.channel)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        if let answer = response {
            finish(.success(answer), channel: context.channel)
        } else {
            let step = handshaking ? "during the TLS handshake" : "before an answer"
            finish(.failure(ProbeFailure(detail: "connection closed \(step)")), channel: context.channel)
        }
        context.fireChannelInactive()
    }

    private func finish(_ result: Result<ProbeResponse, ProbeFailure>, channel: any Channel) {
        guard !done else { return }
        done = true
        timer?.cancel()
        promise.completeWith(result.mapError { $0 as any Error })
        channel.close(promise: nil)
    }

    /// A pipeline error in a probe's words.
    static func describe(_ error: any Error) -> String {
        if let failure = error as? ProbeFailure { return failure.detail }
        if error is HTTPParserError { return "answer is not HTTP" }
        if ProbeTLS.isTLSError(error) { return "TLS: " + ProbeTLS.describe(error) }
        if let io = error as? IOError { return ProbeSocketError(operation: "connect", errno: io.errnoCode).description }
        if let channel = error as? ChannelError, channel == .eof || channel == .ioOnClosedChannel {
            return "connection closed before an answer"
        }
        return String(describing: error)
    }
}
