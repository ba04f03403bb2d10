/// Where a captive portal's page sends the browser, read from the page a portal put in place of
/// the probe's answer: `<meta http-equiv="refresh" content="0; url=…">` first, then a script's
/// `location = "…"`, `location.href = "…"`, `location.replace("…")` or `location.assign("…")`.
///
/// Not an HTML or JavaScript parser: a scan of the bytes, linear in the body (every match
/// resumes after the text it read), that never fails. The candidates are unchecked text:
/// ``PortalURL/resolve(_:against:)`` decides which one is usable.
package enum PortalPageScanner {
    /// The URLs named, meta refreshes first, at most `limit` of them.
    package static func candidates(in body: [UInt8], limit: Int = 8) -> [String] {
        var found = metaRefreshURLs(in: body, limit: limit)
        if found.count < limit { found += scriptURLs(in: body, limit: limit - found.count) }
        return found
    }

    // MARK: Meta refresh

    private static func metaRefreshURLs(in body: [UInt8], limit: Int) -> [String] {
        var found: [String] = []
        var index = 0
        while found.count < limit, let start = ASCIIBytes.find("<meta", in: body, from: index) {
            let afterName = start + 5
            index = afterName
            // `<metadata>` is another tag.
            guard afterName < body.count, ASCIIBytes.isBlank(body[afterName]) || body[afterName] == UInt8(ascii: "/") else {
                continue
            }
            let tag = TagAttributes(body, from: afterName)
            index = max(tag.end, afterName)
            guard let equiv = tag.value(of: "http-equiv"), ASCIIBytes.trimmed(equiv).lowercasedEquals("refresh"),
                let content = tag.value(of: "content"), let url = refreshURL(content)
            else { continue }
            found.append(decodingAmpersands(url))
        }
        return found
    }

    /// The URL of a refresh's `content` (`0; url=…`, `0;URL='…'`, `5, …`, or just `0; …`), as
    /// HTML's shared declarative refresh steps read it, leniently.
    private static func refreshURL(_ content: ArraySlice<UInt8>) -> ArraySlice<UInt8>? {
        var rest = ASCIIBytes.trimmed(content)
        rest = rest.drop { ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9")) || $0 == UInt8(ascii: ".") }
        rest = rest.drop(while: ASCIIBytes.isBlank)
        if let first = rest.first, first == UInt8(ascii: ";") || first == UInt8(ascii: ",") { rest = rest.dropFirst() }
        rest = rest.drop(while: ASCIIBytes.isBlank)
        if rest.prefix(3).lowercasedEquals("url") {
            let afterWord = rest.dropFirst(3).drop(while: ASCIIBytes.isBlank)
            if afterWord.first == UInt8(ascii: "=") { rest = afterWord.dropFirst().drop(while: ASCIIBytes.isBlank) }
        }
        if let quote = rest.first, quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'") {
            rest = rest.dropFirst().prefix { $0 != quote }
        }
        rest = ASCIIBytes.trimmed(rest)
        return rest.isEmpty ? nil : rest
    }

    /// `&amp;` (any case) and `&#38;` as `&`: the one entity a URL in an attribute needs.
    private static func decodingAmpersands(_ bytes: ArraySlice<UInt8>) -> String {
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let rest = bytes[index...]
            if rest.prefix(5).lowercasedEquals("&amp;") {
                output.append(UInt8(ascii: "&"))
                index += 5
            } else if rest.starts(with: "&#38;".utf8) {
                output.append(UInt8(ascii: "&"))
                index += 5
            } else {
                output.append(bytes[index])
                index += 1
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    // MARK: Scripts

    private static func scriptURLs(in body: [UInt8], limit: Int) -> [String] {
        var found: [String] = []
        var index = 0
        while found.count < limit, let start = ASCIIBytes.find("location", in: body, from: index) {
            index = start + 8
            // `geolocation` is not `location`; `window.location` and `document.location` are.
            if start > 0, ASCIIBytes.isIdentifierByte(body[start - 1]) { continue }
            guard let literalStart = assignedLiteralStart(in: body, after: start + 8),
                let (literal, end) = stringLiteral(in: body, at: literalStart)
            else { continue }
            index = end
            found.append(String(decoding: literal, as: UTF8.self))
        }
        return found
    }

    /// After `location`: where the string of `= "…"`, `.href = "…"`, `.replace("…")` or
    /// `.assign("…")` starts, or nil when the text is none of these.
    private static func assignedLiteralStart(in body: [UInt8], after start: Int) -> Int? {
        var index = start
        if ASCIIBytes.matches(".href", in: body, at: index) { index += 5 }
        index = ASCIIBytes.skipBlanks(in: body, from: index)
        guard index < body.count else { return nil }
        if body[index] == UInt8(ascii: "=") {
            // `==` compares.
            guard index + 1 >= body.count || body[index + 1] != UInt8(ascii: "=") else { return nil }
            return ASCIIBytes.skipBlanks(in: body, from: index + 1)
        }
        for call in [".replace(", ".assign("] where ASCIIBytes.matches(call, in: body, at: index) {
            return ASCIIBytes.skipBlanks(in: body, from: index + call.utf8.count)
        }
        return nil
    }

    /// A JavaScript string literal (`"…"`, `'…'` or `` `…` ``) on one line and at most
    /// ``PortalURL/maximumLength`` bytes long, with backslash escapes taken literally (`\/` is
    /// `/`), and the index after it.
    private static func stringLiteral(in body: [UInt8], at start: Int) -> ([UInt8], end: Int)? {
        guard start < body.count else { return nil }
        let quote = body[start]
        guard quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'") || quote == UInt8(ascii: "`") else { return nil }
        var literal: [UInt8] = []
        var index = start + 1
        while index < body.count, literal.count <= PortalURL.maximumLength {
            let byte = body[index]
            if byte == quote { return (literal, index + 1) }
            if byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r") { return nil }
            if byte == UInt8(ascii: "\\"), index + 1 < body.count {
                index += 1
                literal.append(body[index])
            } else {
                literal.append(byte)
            }
            index += 1
        }
        return nil
    }
}
