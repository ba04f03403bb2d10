import ReachabilityCore

/// libFuzzer entry point for the header parsers: the input is one header line (`-H` argument
/// or what a server sent). The line goes to `HTTPHeaderField.parse`; its value (the whole
/// input when it is no header) to `ContentLength.parse`, `HTTPDate.parse` and `RetryAfter.parse`.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHTTPHeader(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let line = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    let field = HTTPHeaderField.parse(line)
    if let field { checkField(field, line: line) }
    let value = field?.value ?? line
    checkContentLength(value)
    checkDate(value)
    return 0
}

/// A parsed field is a token, a colon and a value that cannot split a request.
private func checkField(_ field: HTTPHeaderField, line: String) {
    precondition(!field.name.isEmpty && field.name.utf8.allSatisfy(HTTPHeaderField.isTokenByte), "bad name '\(field.name)'")
    precondition(line.utf8.starts(with: (field.name + ":").utf8), "the name is not what precedes the first colon")
    let forbidden: Set<UInt8> = [0, UInt8(ascii: "\r"), UInt8(ascii: "\n")]
    precondition(!field.value.utf8.contains(where: forbidden.contains), "CR, LF or NUL in the value")
    precondition(field.value.utf8.allSatisfy(HTTPHeaderField.isValueByte), "control character in the value")
    let blank: (UInt8) -> Bool = { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
    precondition(!(field.value.utf8.first.map(blank) ?? false) && !(field.value.utf8.last.map(blank) ?? false), "value not trimmed")
    precondition(HTTPHeaderField.parse("\(field.name): \(field.value)") == field, "the field does not format back")
}

/// A parsed length is a non-negative Int64 that formats back, alone or repeated in a list.
private func checkContentLength(_ value: String) {
    let isDigits = !value.isEmpty && value.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 }
    guard let length = ContentLength.parse(value) else {
        if isDigits, let number = UInt64(value) { precondition(number > UInt64(Int64.max), "'\(value)' refused") }
        return
    }
    precondition(length >= 0, "negative length")
    precondition(!value.contains { $0 == "-" || $0 == "+" }, "a sign accepted in '\(value)'")
    if isDigits { precondition(UInt64(value) == UInt64(length), "'\(value)' read as \(length)") }
    precondition(ContentLength.parse(String(length)) == length, "\(length) does not parse back")
    precondition(ContentLength.parse("\(length), \(length)") == length, "a repeated \(length) refused")
    if length < Int64.max { precondition(ContentLength.parse("\(length), \(length + 1)") == nil, "differing values accepted") }
}

/// A parsed date lies in years 0–9999 and formats back to itself; a Retry-After is never negative.
private func checkDate(_ value: String) {
    let now: Int64 = 1_700_000_000
    if let delay = RetryAfter.parse(value, now: now) { precondition(delay >= .zero, "negative Retry-After") }
    guard let date = HTTPDate.parse(value) else { return }
    // 0000-01-01T00:00:00 to 9999-12-31T23:59:60.
    precondition(date >= -62_167_219_200 && date <= 253_402_300_800, "date \(date) out of range")
    if date < 253_402_300_800 {
        let text = imfFixdate(date)
        precondition(HTTPDate.parse(text) == date, "\(date) formatted as '\(text)' does not parse back")
    }
    if !value.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 || $0 == 0x20 || $0 == 0x09 }) {
        precondition(RetryAfter.parse(value, now: now) == .seconds(max(0, date - now)), "Retry-After disagrees with the date")
    }
}

/// `Mon, DD Mon YYYY HH:MM:SS GMT` (the parser ignores the day name), from days to civil dates
/// as in Howard Hinnant's `civil_from_days`.
private func imfFixdate(_ epoch: Int64) -> String {
    let days = epoch >= 0 ? epoch / 86_400 : -((-epoch + 86_399) / 86_400)
    let seconds = epoch - days * 86_400
    let z = days + 719_468
    let era = (z >= 0 ? z : z - 146_096) / 146_097
    let dayOfEra = z - era * 146_097
    let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
    let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
    let monthIndex = (5 * dayOfYear + 2) / 153
    let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
    let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
    let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
    let names = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    func pad(_ value: Int64, _ width: Int) -> String {
        let text = String(value)
        return String(repeating: "0", count: max(0, width - text.count)) + text
    }
    return "Mon, \(pad(day, 2)) \(names[Int(month - 1)]) \(pad(year, 4)) "
        + "\(pad(seconds / 3600, 2)):\(pad(seconds / 60 % 60, 2)):\(pad(seconds % 60, 2)) GMT"
}
