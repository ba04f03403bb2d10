import ReachabilityCore
/// The framing of a `multipart/form-data` body (RFC 7578) with one file part: the file's
/// bytes are streamed between ``preamble`` and ``epilogue``, so the body's length is known
/// exactly without reading the file.
struct MultipartBody: Sendable, Hashable {
    let boundary: String
    /// `--BOUNDARY`, the part's headers and the blank line before the file's bytes.
    let preamble: [UInt8]
    /// The line break ending the part and the closing delimiter.
    let epilogue: [UInt8]

    init(field: String, filename: String, boundary: String = MultipartBody.randomBoundary()) {
        self.boundary = boundary
        let disposition = "Content-Disposition: form-data; name=\"\(Self.escape(field))\"; filename=\"\(Self.escape(filename))\""
        preamble = Array("--\(boundary)\r\n\(disposition)\r\nContent-Type: application/octet-stream\r\n\r\n".utf8)
        epilogue = Array("\r\n--\(boundary)--\r\n".utf8)
    }

    /// The request's `Content-Type`.
    var contentType: String { "multipart/form-data; boundary=\(boundary)" }

    /// The body's exact length for a file of `fileSize` bytes.
    func contentLength(fileSize: Int64) -> Int64 {
        Int64(preamble.count) + fileSize + Int64(epilogue.count)
    }

    /// 32 random hex digits after a fixed prefix: the chance that a file contains the
    /// delimiter is negligible (RFC 2046 asks only that it not occur in the body).
    static func randomBoundary() -> String {
        var generator = SystemRandomNumberGenerator()
        let digits = (0..<2).map { _ in
            let hex = String(generator.next() as UInt64, radix: 16)
            return String(repeating: "0", count: 16 - hex.count) + hex
        }
        return "reach-boundary-" + digits.joined()
    }

    /// A field name or filename inside a quoted parameter, as browsers encode it (WHATWG
    /// "multipart/form-data encoding"): `"` becomes `%22`, CR `%0D` and LF `%0A`, so the value
    /// can neither end the quotes nor start a header.
    static func escape(_ value: String) -> String {
        var out = ""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": out += "%22"
            case "\r": out += "%0D"
            case "\n": out += "%0A"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
