// reach-testserver: an HTTP/1.1 file server for the transfer tests and benchmarks.
//
//   reach-testserver --root DIR [--host 127.0.0.1] [--port 0] [--log FILE] [--exit-on-stdin-eof]
//
// Prints exactly one line, `listening on HOST:PORT`, once it accepts connections. Serves files
// under DIR (GET and HEAD) with Content-Length, a strong ETag, Last-Modified, Accept-Ranges and
// single byte ranges (206 / 416, If-Range). Faults are injected per request by query parameters:
//   norange=1                 ignore Range, always 200 with the whole file
//   truncate=N                close the connection after N body bytes
//   reset=N                   abort the connection (RST) after N body bytes
//   fail=K&failstatus=S       the first K requests for this request target answer S (503)
//   retryafter=V              with fail: add `Retry-After: V`
//   slow=BYTES_PER_SECOND     throttle the body (1 B/s ... 1 GiB/s, chunks of at most 64 KiB)
//   etag=VALUE                use VALUE as the ETag (quoted unless it is already, W/ kept);
//                             etag=perrequest: a new strong ETag in every answer
//   noetag=1, nolastmodified=1   omit that validator
//   nohead=1                  refuse HEAD with 405
//   chunked=1                 no Content-Length: a chunked body (the size hidden)
//   redirect=TARGET           302 to TARGET; redirect=self: to this very target (a loop)
// --log FILE appends one JSON object per request: method, path, query, range, ifRange, status,
// bytes (body bytes sent), start (first body offset), outcome, headers (Authorization,
// User-Agent and X-* as `name: value`), began and ended (microseconds of the monotonic clock:
// which requests were served at the same time).
// SIGTERM and SIGINT close the listener and exit 0.

import Dispatch
import NIOCore
import NIOHTTP1
import NIOPosix

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

struct Options {
    var host = "127.0.0.1"
    var port = 0
    var root: String?
    var log: String?
    var exitOnStdinEOF = false

    static let usage = "usage: reach-testserver --root DIR [--host ADDRESS] [--port N] [--log FILE] [--exit-on-stdin-eof]"

    static func parse(_ arguments: [String]) throws(ServerError) -> Options {
        var options = Options()
        var iterator = arguments.makeIterator()
        func value(_ name: String) throws(ServerError) -> String {
            guard let next = iterator.next() else { throw ServerError("\(name) needs a value\n\(usage)") }
            return next
        }
        while let argument = iterator.next() {
            switch argument {
            case "--host": options.host = try value(argument)
            case "--port":
                let text = try value(argument)
                guard let port = Int(text), (0...65535).contains(port) else { throw ServerError("bad port \(text)") }
                options.port = port
            case "--root": options.root = try value(argument)
            case "--log": options.log = try value(argument)
            case "--exit-on-stdin-eof": options.exitOnStdinEOF = true
            case "-h", "--help":
                print(usage)
                exit(0)
            default: throw ServerError("unknown argument \(argument)\n\(usage)")
            }
        }
        return options
    }
}

func terminationSignals() -> sigset_t {
    var signals = sigset_t()
    sigemptyset(&signals)
    sigaddset(&signals, SIGTERM)
    sigaddset(&signals, SIGINT)
    return signals
}

func runServer() throws {
    let options = try Options.parse(Array(CommandLine.arguments.dropFirst()))
    guard let rootArgument = options.root else { throw ServerError("--root is required\n\(Options.usage)") }
    guard let resolved = realpath(rootArgument, nil) else {
        throw ServerError("root \(rootArgument): \(String(cString: strerror(errno)))")
    }
    let root = String(cString: resolved)
    free(resolved)
    let log = try options.log.map { path throws(ServerError) in try RequestLog(path: path) }
    let context = ServerContext(root: root, log: log)

    signal(SIGPIPE, SIG_IGN)
    var blocked = terminationSignals()
    pthread_sigmask(SIG_BLOCK, &blocked, nil)
    let group = MultiThreadedEventLoopGroup(numberOfThreads: 2)
    let bootstrap = ServerBootstrap(group: group)
        .serverChannelOption(.backlog, value: 256)
        .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
        .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
        .childChannelInitializer { channel in
            channel.eventLoop.makeCompletedFuture {
                try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
                try channel.pipeline.syncOperations.addHandler(FileServerHandler(server: context))
            }
        }
    let listener = try bootstrap.bind(host: options.host, port: options.port).wait()
    let port = listener.localAddress?.port ?? options.port

    // SIGTERM and SIGINT are blocked in every thread (see `blockTerminationSignals`) and taken
    // here synchronously, so the process always shuts down through the listener.
    DispatchQueue.global().async {
        var signals = terminationSignals()
        var received: Int32 = 0
        while sigwait(&signals, &received) != 0 {}
        listener.close(promise: nil)
    }
    if options.exitOnStdinEOF {
        // The tests keep our stdin open: when their process dies, so do we.
        DispatchQueue.global().async {
            var byte: UInt8 = 0
            while true {
                let count = read(STDIN_FILENO, &byte, 1)
                if count == 0 || (count < 0 && errno != EINTR) { break }
            }
            listener.close(promise: nil)
        }
    }

    print("listening on \(options.host):\(port)")
    fflush(nil)

    try listener.closeFuture.wait()
    try? group.syncShutdownGracefully()
}

do {
    try runServer()
    exit(0)
} catch {
    let message = Array("reach-testserver: \(error)\n".utf8)
    _ = message.withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
    exit(1)
}
