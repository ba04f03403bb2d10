import ReachabilityCore

/// libFuzzer entry point for the probe answer classifier and the probe URL parser. The input is
/// a probe URL on the first line, optionally `expect:TEXT` on the next, then an HTTP/1.1
/// response as a server or a portal would send it: status line, header lines, a blank line,
/// the body (kept as raw bytes). The first line also goes to `ProbeEndpoint(parsing:)` alone.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzProbeResponse(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    var input = FuzzInput(Array(UnsafeBufferPointer(start: data, count: size)))
    let urlLine = input.line()
    let parsed = checkEndpoint(urlLine)
    var expectedBody: String?
    if input.peekLine().starts(with: "expect:".utf8) { expectedBody = String(decoding: input.line().dropFirst(7), as: UTF8.self) }
    // An unusable first line still exercises the classifier, on a plain HTTP endpoint.
    let base = parsed ?? (try? ProbeEndpoint(parsing: "http://probe.test/generate_204"))
    guard var endpoint = base else { preconditionFailure("the fallback endpoint does not parse") }
    if let expectedBody { endpoint.expectedBody = expectedBody }
    let (status, reason) = statusLine(input.line())
    var headers: [(name: String, value: String)] = []
    while !input.isAtEnd {
        let line = input.line()
        if line.isEmpty { break }
        let colon = line.firstIndex(of: UInt8(ascii: ":")) ?? line.endIndex
        let value = colon < line.endIndex ? line[(colon + 1)...] : []
        headers.append((String(decoding: line[..<colon], as: UTF8.self), String(decoding: value, as: UTF8.self)))
    }
    let verdict = ProbeResponseClassifier.classify(endpoint: endpoint, status: status, reason: reason, headers: headers, body: input.rest())
    checkVerdict(verdict, endpoint: endpoint, status: status)
    return 0
}

/// Lines (LF or CRLF) over the input's bytes.
private struct FuzzInput {
    let bytes: [UInt8]
    var position = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var isAtEnd: Bool { position >= bytes.count }

    func peekLine() -> ArraySlice<UInt8> {
        let end = bytes[position...].firstIndex(of: UInt8(ascii: "\n")) ?? bytes.count
        var line = bytes[position..<end]
        if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
        return line
    }

    mutating func line() -> ArraySlice<UInt8> {
        let line = peekLine()
        let end = bytes[position...].firstIndex(of: UInt8(ascii: "\n")) ?? bytes.count
        position = min(end + 1, bytes.count)
        return line
    }

    func rest() -> [UInt8] { Array(bytes[position...]) }
}

/// `HTTP/1.1 302 Found`: up to 6 digits of status (so 0, 99 and 99999 occur too), and the rest.
private func statusLine(_ line: ArraySlice<UInt8>) -> (Int, String) {
    let afterVersion = line.drop { $0 != UInt8(ascii: " ") }.dropFirst()
    let digits = afterVersion.prefix { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }.prefix(6)
    let status = DecimalDigits.int64(digits).map(Int.init) ?? -1
    let reason = afterVersion.dropFirst(digits.count)
    return (status, String(decoding: reason, as: UTF8.self))
}

/// A parsed endpoint is http(s), printable, and parses back to itself from its URL.
private func checkEndpoint(_ line: ArraySlice<UInt8>) -> ProbeEndpoint? {
    let text = String(decoding: line, as: UTF8.self)
    guard let endpoint = try? ProbeEndpoint(parsing: text) else { return nil }
    precondition(endpoint.url.hasPrefix(endpoint.isHTTPS ? "https://" : "http://"), "scheme lost in '\(endpoint.url)'")
    precondition(endpoint.url.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F }, "unprintable URL")
    precondition(!endpoint.host.isEmpty && (1...65535).contains(endpoint.port) && endpoint.target.hasPrefix("/"), "bad parts")
    precondition(!endpoint.url.contains("@") || endpoint.target.contains("@"), "user info kept")
    precondition((try? ProbeEndpoint(parsing: endpoint.url)) == endpoint, "'\(endpoint.url)' does not parse back")
    return endpoint
}

/// What holds for every verdict: one of the outcomes, a portal URL only on a portal and always
/// safe to print, a printable detail, and HTTPS never a portal but by 511.
private func checkVerdict(_ verdict: ProbeVerdict, endpoint: ProbeEndpoint, status: Int) {
    precondition([.success, .portal, .failure].contains(verdict.outcome), "outcome \(verdict.outcome)")
    if let url = verdict.portalURL {
        precondition(verdict.outcome == .portal, "a portal URL without a portal")
        precondition(url.hasPrefix("http://") || url.hasPrefix("https://"), "portal URL '\(url)' is not http(s)")
        precondition(url.utf8.count <= 2048, "portal URL of \(url.utf8.count) bytes")
        precondition(url.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F }, "unprintable portal URL")
    }
    precondition(verdict.detail.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F }, "unprintable detail")
    precondition(verdict.detail.utf8.count <= 2048 + 200, "detail of \(verdict.detail.utf8.count) bytes")
    if verdict.outcome == .success { precondition((200...299).contains(status), "success on \(status)") }
    if verdict.outcome == .portal {
        precondition(status == 511 || (!endpoint.isHTTPS && (200...399).contains(status)), "portal on \(status)")
    }
    // The judge agrees with a lone record.
    let record = ProbeRecord(
        url: endpoint.url, kind: endpoint.isHTTPS ? .https : .http, interface: "fuzz0", startedAt: 0, milliseconds: 0,
        outcome: verdict.outcome, portalURL: verdict.portalURL, detail: verdict.detail
    )
    let judged = ConnectivityJudge.judge([record])
    let expected: Connectivity = verdict.outcome == .portal ? .portal : verdict.outcome == .success ? .full : .limited
    precondition(judged.connectivity == expected && judged.portalURL == verdict.portalURL, "judge disagrees")
}
