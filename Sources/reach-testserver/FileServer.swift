import NIOCore
import NIOHTTP1
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// State every connection shares: the document root, the request log and the `fail=K`
/// counters (keyed by the whole request target, so every test gets its own counter).
final class ServerContext: Sendable {
    let root: String
    let log: RequestLog?
    private let requestCounts = Mutex<[String: Int]>([:])

    init(root: String, log: RequestLog?) {
        self.root = root
        self.log = log
    }

    /// Counts one more request for `key` and returns its 1-based number.
    func countRequest(for key: String) -> Int {
        requestCounts.withLock { counts in
            let next = (counts[key] ?? 0) + 1
            counts[key] = next
            return next
        }
    }
}

/// One JSON object per line, appended with a single `write(2)` so lines never interleave.
final class RequestLog: Sendable {
    private let descriptor: Int32
    private let lock = Mutex<Void>(())

    init(path: String) throws(ServerError) {
        let fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw ServerError("cannot open log \(path): \(String(cString: strerror(errno)))") }
        descriptor = fd
    }

    func append(_ entry: LogEntry) {
        var entry = entry
        entry.ended = LogEntry.now()
        let line = entry.json + "\n"
        lock.withLock { _ in
            var bytes = Array(line.utf8)
            var offset = 0
            while offset < bytes.count {
                let written = bytes.withUnsafeMutableBytes { raw in
                    write(descriptor, raw.baseAddress! + offset, raw.count - offset)
                }
                if written < 0 {
                    if errno == EINTR { continue }
                    return
                }
                offset += written
            }
            bytes.removeAll()
        }
    }
}

struct ServerError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// What the log records about one request.
struct LogEntry {
    var method: String
    var path: String
    var query: String
    var range: String?
    var ifRange: String?
    var status: Int = 0
    /// Body bytes the kernel accepted for this response.
    var bytes: Int64 = 0
    /// First body byte's offset in the file (nil when no body was planned).
    var start: Int64?
    /// How the response ended: `complete`, `truncated`, `reset`, `aborted` (peer went away).
    var outcome: String = "complete"
    /// `Authorization`, `User-Agent` and every `X-…` header, `name: value`, as received: what
    /// a test checks a client sent.
    var headers: [String] = []
    /// When the request was read and when its response ended, in microseconds of the monotonic
    /// clock: which requests were served at the same time.
    var began = LogEntry.now()
    var ended: Int64 = 0

    static func now() -> Int64 { Int64(NIODeadline.now().uptimeNanoseconds / 1000) }

    var json: String {
        "{\"method\":\(JSONText.quoted(method)),\"path\":\(JSONText.quoted(path)),\"query\":\(JSONText.quoted(query)),"
            + "\"range\":\(JSONText.optional(range)),\"ifRange\":\(JSONText.optional(ifRange)),\"status\":\(status),"
            + "\"bytes\":\(bytes),\"start\":\(start.map { String($0) } ?? "null"),\"outcome\":\(JSONText.quoted(outcome)),"
            + "\"headers\":[\(headers.map(JSONText.quoted).joined(separator: ","))],\"began\":\(began),\"ended\":\(ended)}"
    }
}

/// Serves files from the root with validators, single ranges and per-request injected faults.
final class FileServerHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private enum Cut {
        case truncate
        case reset
    }

    /// The body being sent: file regions, a few in flight (or one per tick when throttled).
    private final class BodyTransfer {
        let file: NIOFileHandle
        var next: Int64
        /// Where sending stops (exclusive): the end of the range, or the cut point.
        let stop: Int64
        let cut: Cut?
        let bytesPerSecond: Int64?
        let keepAlive: Bool
        var entry: LogEntry
        var inFlight = 0
        var failed = false
        var done = false
        var timer: Scheduled<Void>?

        init(file: NIOFileHandle, next: Int64, stop: Int64, cut: Cut?, bytesPerSecond: Int64?, keepAlive: Bool, entry: LogEntry) {
            self.file = file
            self.next = next
            self.stop = stop
            self.cut = cut
            self.bytesPerSecond = bytesPerSecond
            self.keepAlive = keepAlive
            self.entry = entry
        }
    }

    private static let chunkSize: Int64 = 8 << 20
    private static let maximumInFlight = 2

    private let server: ServerContext
    private var requestHead: HTTPRequestHead?
    private var transfer: BodyTransfer?

    init(server: ServerContext) {
        self.server = server
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            requestHead = head
        case .body:
            break
        case .end:
            if let head = requestHead {
                requestHead = nil
                respond(context: context, head: head)
            }
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        if let transfer, !transfer.done {
            transfer.timer?.cancel()
            transfer.timer = nil
            transfer.failed = true
            if transfer.inFlight == 0 { finish(context: context, transfer) }
        }
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    // MARK: Requests

    private func respond(context: ChannelHandlerContext, head: HTTPRequestHead) {
        let (path, query, items) = URIParts.split(head.uri)
        var entry = LogEntry(
            method: head.method.rawValue, path: path, query: query,
            range: head.headers.first(name: "range"), ifRange: head.headers.first(name: "if-range")
        )
        entry.headers = head.headers.filter { name, _ in
            let lower = name.lowercased()
            return lower == "authorization" || lower == "user-agent" || lower.hasPrefix("x-")
        }.map { "\($0.name): \($0.value)" }
        let keepAlive = head.isKeepAlive

        if let target = items["redirect"] {
            let location = target == "self" ? head.uri : target
            sendSimple(context: context, status: 302, headers: ["Location": location], text: "", head: head, keepAlive: keepAlive, entry: &entry)
            return
        }

        if let failures = items["fail"].flatMap(Int.init), failures > 0,
            server.countRequest(for: head.uri) <= failures
        {
            let status = items["failstatus"].flatMap(Int.init) ?? 503
            var headers = HTTPHeaders()
            if let retryAfter = items["retryafter"] { headers.add(name: "Retry-After", value: retryAfter) }
            sendSimple(context: context, status: status, headers: headers, text: "injected failure\n", head: head, keepAlive: keepAlive, entry: &entry)
            return
        }
        guard head.method == .GET || head.method == .HEAD else {
            sendSimple(context: context, status: 405, headers: ["Allow": "GET, HEAD"], text: "method not allowed\n", head: head, keepAlive: keepAlive, entry: &entry)
            return
        }
        if head.method == .HEAD, items["nohead"] == "1" {
            sendSimple(context: context, status: 405, headers: ["Allow": "GET"], text: "", head: head, keepAlive: keepAlive, entry: &entry)
            return
        }
        guard let (fd, info) = openFile(path) else {
            sendSimple(context: context, status: 404, headers: [:], text: "not found\n", head: head, keepAlive: keepAlive, entry: &entry)
            return
        }
        let file = NIOFileHandle(_deprecatedTakingOwnershipOfDescriptor: fd)
        let size = Int64(info.st_size)

        let etag: String? = {
            if items["noetag"] == "1" { return nil }
            // A load balancer whose backends tag the same file differently: a new tag each answer.
            if items["etag"] == "perrequest" { return "\"\(UInt64.random(in: 0...UInt64.max))\"" }
            if let override = items["etag"] {
                return override.hasPrefix("\"") || override.hasPrefix("W/") ? override : "\"\(override)\""
            }
            let mtime = info.st_mtim
            return "\"\(String(size, radix: 16))-\(String(mtime.tv_sec, radix: 16))-\(String(mtime.tv_nsec, radix: 16))\""
        }()
        let lastModified = items["nolastmodified"] == "1" ? nil : HTTPDateFormat.format(epochSeconds: Int(info.st_mtim.tv_sec))
        let honoursRanges = items["norange"] != "1"

        var range = honoursRanges ? RangeRequest.parse(entry.range, size: size) : .none
        if range != .none, let ifRange = entry.ifRange?.trimmingASCIISpaces() {
            let matches: Bool
            if ifRange.hasPrefix("\"") {
                // Strong comparison: a weak ETag never matches.
                matches = etag.map { !$0.hasPrefix("W/") && $0 == ifRange } ?? false
            } else if ifRange.hasPrefix("W/") {
                matches = false
            } else {
                matches = lastModified == ifRange
            }
            if !matches { range = .none }
        }

        var headers = HTTPHeaders()
        headers.add(name: "Date", value: HTTPDateFormat.now())
        headers.add(name: "Content-Type", value: "application/octet-stream")
        headers.add(name: "Accept-Ranges", value: honoursRanges ? "bytes" : "none")
        if let etag { headers.add(name: "ETag", value: etag) }
        if let lastModified { headers.add(name: "Last-Modified", value: lastModified) }
        if !keepAlive { headers.add(name: "Connection", value: "close") }

        let status: HTTPResponseStatus
        let first: Int64
        let end: Int64
        switch range {
        case .unsatisfiable:
            try? file.close()
            headers.add(name: "Content-Range", value: "bytes */\(size)")
            headers.add(name: "Content-Length", value: "0")
            entry.status = 416
            context.write(wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: .rangeNotSatisfiable, headers: headers))), promise: nil)
            endResponse(context: context, keepAlive: keepAlive, entry: entry)
            return
        case .satisfiable(let rangeFirst, let rangeLast):
            status = .partialContent
            first = rangeFirst
            end = rangeLast + 1
            headers.add(name: "Content-Range", value: "bytes \(rangeFirst)-\(rangeLast)/\(size)")
        case .none:
            status = .ok
            first = 0
            end = size
        }
        if items["chunked"] == "1" {
            // The size hidden from the client (no Content-Length): what a size limit must survive.
            headers.add(name: "Transfer-Encoding", value: "chunked")
        } else {
            headers.add(name: "Content-Length", value: String(end - first))
        }
        entry.status = Int(status.code)
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: status, headers: headers))), promise: nil)

        guard head.method == .GET, end > first else {
            try? file.close()
            endResponse(context: context, keepAlive: keepAlive, entry: entry)
            return
        }
        entry.start = first

        var cut: Cut?
        var stop = end
        if let limit = items["truncate"].flatMap(Int64.init), limit >= 0, first + limit < end {
            cut = .truncate
            stop = first + limit
        }
        if let limit = items["reset"].flatMap(Int64.init), limit >= 0, first + limit < stop {
            cut = .reset
            stop = first + limit
        }
        // Bounded throttle: at least 1 byte/s, at most 1 GiB/s.
        let bytesPerSecond = items["slow"].flatMap(Int64.init).map { min(max($0, 1), 1 << 30) }
        let transfer = BodyTransfer(
            file: file, next: first, stop: stop, cut: cut, bytesPerSecond: bytesPerSecond,
            keepAlive: keepAlive, entry: entry
        )
        self.transfer = transfer
        context.flush()
        pump(context: context, transfer)
    }

    private func openFile(_ path: String) -> (Int32, stat)? {
        guard path.hasPrefix("/") else { return nil }
        let components = path.split(separator: "/", omittingEmptySubsequences: true)
        guard !components.isEmpty, !components.contains(where: { $0 == ".." || $0 == "." }) else { return nil }
        let fullPath = server.root + "/" + components.joined(separator: "/")
        let fd = open(fullPath, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            close(fd)
            return nil
        }
        return (fd, info)
    }

    private func sendSimple(
        context: ChannelHandlerContext, status: Int, headers extra: HTTPHeaders, text: String,
        head: HTTPRequestHead, keepAlive: Bool, entry: inout LogEntry
    ) {
        var headers = extra
        headers.add(name: "Date", value: HTTPDateFormat.now())
        headers.add(name: "Content-Type", value: "text/plain")
        headers.add(name: "Content-Length", value: String(text.utf8.count))
        if !keepAlive { headers.add(name: "Connection", value: "close") }
        entry.status = status
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: HTTPResponseStatus(statusCode: status), headers: headers))), promise: nil)
        if head.method != .HEAD, !text.isEmpty {
            var buffer = context.channel.allocator.buffer(capacity: text.utf8.count)
            buffer.writeString(text)
            context.write(wrapOutboundOut(.body(.byteBuffer(buffer))), promise: nil)
            entry.bytes = Int64(text.utf8.count)
        }
        endResponse(context: context, keepAlive: keepAlive, entry: entry)
    }

    private func endResponse(context: ChannelHandlerContext, keepAlive: Bool, entry: LogEntry) {
        let log = server.log
        context.writeAndFlush(wrapOutboundOut(.end(nil))).assumeIsolated().whenComplete { _ in
            log?.append(entry)
            if !keepAlive { context.close(promise: nil) }
        }
    }

    // MARK: Body

    private func pump(context: ChannelHandlerContext, _ transfer: BodyTransfer) {
        guard !transfer.failed, !transfer.done else { return }
        if let bytesPerSecond = transfer.bytesPerSecond {
            guard transfer.inFlight == 0, transfer.timer == nil else { return }
            guard transfer.next < transfer.stop else { return finish(context: context, transfer) }
            let length = min(max(1, bytesPerSecond / 20), 65_536, transfer.stop - transfer.next)
            send(context: context, transfer, length: length) { [self] in
                guard transfer.next < transfer.stop else { return pump(context: context, transfer) }
                let delay = TimeAmount.nanoseconds(length * 1_000_000_000 / bytesPerSecond)
                transfer.timer = context.eventLoop.assumeIsolated().scheduleTask(in: delay) { [self] in
                    transfer.timer = nil
                    pump(context: context, transfer)
                }
            }
            return
        }
        while transfer.inFlight < Self.maximumInFlight, transfer.next < transfer.stop {
            let length = min(Self.chunkSize, transfer.stop - transfer.next)
            send(context: context, transfer, length: length) { [self] in pump(context: context, transfer) }
        }
        if transfer.inFlight == 0, transfer.next >= transfer.stop { finish(context: context, transfer) }
    }

    private func send(context: ChannelHandlerContext, _ transfer: BodyTransfer, length: Int64, then next: @escaping () -> Void) {
        let region = FileRegion(fileHandle: transfer.file, readerIndex: Int(transfer.next), endIndex: Int(transfer.next + length))
        transfer.next += length
        transfer.inFlight += 1
        context.writeAndFlush(wrapOutboundOut(.body(.fileRegion(region)))).assumeIsolated().whenComplete { [self] result in
            transfer.inFlight -= 1
            switch result {
            case .success:
                transfer.entry.bytes += length
                if !transfer.failed { next() }
            case .failure:
                transfer.failed = true
            }
            if transfer.failed, transfer.inFlight == 0 { finish(context: context, transfer) }
        }
    }

    private func finish(context: ChannelHandlerContext, _ transfer: BodyTransfer) {
        guard !transfer.done else { return }
        transfer.done = true
        if self.transfer === transfer { self.transfer = nil }
        try? transfer.file.close()
        var entry = transfer.entry
        let log = server.log
        if transfer.failed {
            entry.outcome = "aborted"
            log?.append(entry)
            context.close(promise: nil)
            return
        }
        switch transfer.cut {
        case .truncate:
            entry.outcome = "truncated"
            log?.append(entry)
            context.close(promise: nil)
        case .reset:
            entry.outcome = "reset"
            log?.append(entry)
            if let provider = context.channel as? any SocketOptionProvider {
                provider.setSoLinger(linger(l_onoff: 1, l_linger: 0)).assumeIsolated().whenComplete { _ in
                    context.close(promise: nil)
                }
            } else {
                context.close(promise: nil)
            }
        case nil:
            endResponse(context: context, keepAlive: transfer.keepAlive, entry: entry)
        }
    }
}
