/// A response as read off a ``RawHTTPConnection``.
struct RawResponse {
    var status: Int
    var headers: [(String, String)]
    var body: [UInt8] = []

    func header(_ name: String) -> String? {
        headers.first { $0.0.lowercased() == name.lowercased() }?.1
    }

    var text: String { String(decoding: body, as: UTF8.self) }
}

extension RawHTTPConnection {
    /// The next response head (skipping `100 Continue`); nil when the connection closed first.
    func readHead() async throws -> RawResponse? {
        while true {
            guard let bytes = try await read(through: Array("\r\n\r\n".utf8)) else { return nil }
            let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\r\n")
            guard let statusLine = lines.first, statusLine.split(separator: " ").count >= 2,
                let status = Int(statusLine.split(separator: " ")[1])
            else { throw TestFailure("not a status line: \(lines.first ?? "")") }
            if status == 100 { continue }
            let headers = lines.dropFirst().map { line -> (String, String) in
                let parts = line.split(separator: ":", maxSplits: 1)
                return (String(parts[0]), parts.count > 1 ? parts[1].trimmingPrefix(" ").description : "")
            }
            return RawResponse(status: status, headers: headers)
        }
    }

    /// The next chunk of a chunked body; nil at its last (empty) chunk.
    func readChunk() async throws -> [UInt8]? {
        guard let sizeLine = try await read(through: Array("\r\n".utf8)),
            let size = Int(String(decoding: sizeLine.dropLast(2), as: UTF8.self), radix: 16)
        else { throw TestFailure("bad chunk size line") }
        if size == 0 {
            _ = try await read(through: Array("\r\n".utf8))
            return nil
        }
        let chunk = try await read(count: size)
        _ = try await read(count: 2)
        return chunk
    }

    /// A whole response: head and body, framed by `Content-Length`, chunks, or the end of the
    /// connection. Nil when the connection closed before a response.
    func readResponse(toHEAD: Bool = false) async throws -> RawResponse? {
        guard var response = try await readHead() else { return nil }
        if toHEAD { return response }
        if let length = response.header("content-length").flatMap(Int.init) {
            response.body = try await read(count: length)
        } else if response.header("transfer-encoding") == "chunked" {
            while let chunk = try await readChunk() { response.body += chunk }
        } else {
            response.body = try await readToEnd()
        }
        return response
    }
}
