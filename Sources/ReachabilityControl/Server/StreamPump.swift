import NIOCore
import NIOHTTP1

/// Copies a streaming response's chunks to the connection until the stream ends, the client
/// goes away, or the server stops.
///
/// The chunks are taken in a task of their own so the pump can be stopped while it waits for
/// the next one: when the channel closes (the client disconnected, or the server closed it) or
/// the serving task is cancelled, that task is cancelled, which ends the `AsyncStream` and so
/// tells its producer (`onTermination`, `yield` returning `.terminated`).
struct StreamPump {
    let writer: ResponseWriter

    func send(_ chunks: AsyncStream<[UInt8]>) async throws {
        let channel = writer.channel
        let writer = writer
        let pump = Task {
            for await chunk in chunks where !chunk.isEmpty {
                // An empty chunk would read as the end of a chunked body: skipped above.
                try await writer.write(.body(.byteBuffer(ByteBuffer(bytes: chunk))))
            }
        }
        channel.closeFuture.whenComplete { _ in pump.cancel() }
        try await withTaskCancellationHandler {
            try await pump.value
        } onCancel: {
            pump.cancel()
        }
        // Ended because the server stops or the client went away: no end of body to write.
        try Task.checkCancellation()
        guard channel.isActive else { throw ChannelError.ioOnClosedChannel }
    }
}
