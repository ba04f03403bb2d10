import NIOCore
import NIOHTTP1

/// Closes the connection when `IdleStateHandler` reports no traffic, unless a request is
/// being answered: a handler still computing its response, or a stream with nothing to send
/// for a while, is not idleness.
final class IdleConnectionCloser: ChannelDuplexHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    /// Requests received whose response has not ended.
    private var unanswered = 0 {
        didSet { activity.set(answering: unanswered) }
    }
    /// Told whether a request is being answered: the registry may close an idle connection to
    /// make room for a new one.
    private let activity: ConnectionActivity

    init(activity: ConnectionActivity = ConnectionActivity()) {
        self.activity = activity
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head = unwrapInboundIn(data) { unanswered += 1 }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) { unanswered = max(0, unanswered - 1) }
        context.write(data, promise: promise)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is IdleStateHandler.IdleStateEvent {
            if unanswered == 0 { context.close(promise: nil) }
            return
        }
        context.fireUserInboundEventTriggered(event)
    }
}

@available(*, unavailable)
extension IdleConnectionCloser: Sendable {}
