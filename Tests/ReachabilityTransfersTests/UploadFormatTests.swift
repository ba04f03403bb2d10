import Foundation
import Testing

@testable import ReachabilityTransfers

@Suite("Uploads: multipart body, tus metadata, headers")
struct UploadFormatTests {
    @Test func multipartBodyLaysOutOnePartAroundTheFile() {
        let body = MultipartBody(field: "files", filename: "report.pdf", boundary: "XyZ")
        #expect(
            String(decoding: body.preamble, as: UTF8.self)
                == "--XyZ\r\nContent-Disposition: form-data; name=\"files\"; filename=\"report.pdf\"\r\nContent-Type: application/octet-stream\r\n\r\n")
        #expect(String(decoding: body.epilogue, as: UTF8.self) == "\r\n--XyZ--\r\n")
        #expect(body.contentType == "multipart/form-data; boundary=XyZ")
        // The length is the framing plus the file, exactly.
        #expect(body.contentLength(fileSize: 1000) == Int64(body.preamble.count + 1000 + body.epilogue.count))
        #expect(body.contentLength(fileSize: 0) == Int64(body.preamble.count + body.epilogue.count))
    }

    @Test(arguments: [
        ("plain.bin", "plain.bin"),
        ("say \"hi\".txt", "say %22hi%22.txt"),
        ("two\r\nlines", "two%0D%0Alines"),
        ("Content-Type: x\nEvil: 1", "Content-Type: x%0AEvil: 1"),
        ("café ✓.txt", "café ✓.txt"),
    ])
    func filenamesCannotEndTheQuotesOrStartAHeader(_ name: String, _ escaped: String) {
        #expect(MultipartBody.escape(name) == escaped)
        let preamble = String(decoding: MultipartBody(field: "f", filename: name, boundary: "B").preamble, as: UTF8.self)
        // One header line per header: the name never adds a line.
        #expect(preamble.components(separatedBy: "\r\n").count == 5)
    }

    @Test func randomBoundariesDifferAndAreTokens() {
        let boundaries = Set((0..<50).map { _ in MultipartBody.randomBoundary() })
        #expect(boundaries.count == 50)
        #expect(boundaries.allSatisfy { $0.count == 47 && $0.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" } })
    }

    @Test(arguments: [
        ([("filename", "a.bin")], "filename YS5iaW4="),
        ([("filename", "a.bin"), ("filetype", "application/octet-stream")], "filename YS5iaW4=,filetype YXBwbGljYXRpb24vb2N0ZXQtc3RyZWFt"),
        ([("filename", "")], "filename "),
        ([("filename", "ü ✓")], "filename w7wg4pyT"),
        ([("bad key", "x"), ("k,2", "y"), ("", "z"), ("ok", "v")], "ok dg=="),
    ])
    func uploadMetadataIsKeySpaceBase64(_ pairs: [(String, String)], _ expected: String) {
        #expect(TusProtocol.encodeMetadata(pairs.map { (key: $0.0, value: $0.1) }) == expected)
    }

    @Test func metadataCarriesFilenameAndType() {
        #expect(TusProtocol.metadata(filename: "x") == "filename eA==,filetype YXBwbGljYXRpb24vb2N0ZXQtc3RyZWFt")
    }
}
