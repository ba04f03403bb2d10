import ReachabilityCore
import ReachabilityTransfers
import Testing

private let url = "https://example.com/file.bin"
private let strong = "\"abc\""
private let weak = "W/\"abc\""
private let date = "Sun, 06 Nov 1994 08:49:37 GMT"

private func meta(url: String = url, size: Int64? = 1000, etag: String? = strong, lastModified: String? = date) -> PartialDownload {
    PartialDownload(url: url, size: size, etag: etag, lastModified: lastModified)
}

@Suite("ResumePlanner: which request")
struct ResumePlanTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var label: String
        var metadata: PartialDownload?
        var partLength: Int64?
        var expected: ResumePlanner.Plan
        var testDescription: String { label }
    }

    static let cases: [Case] = [
        Case(label: "nothing on disk", metadata: nil, partLength: nil, expected: .fresh(discarding: 0)),
        Case(label: "empty partial", metadata: meta(), partLength: 0, expected: .fresh(discarding: 0)),
        Case(label: "partial without metadata", metadata: nil, partLength: 10, expected: .fresh(discarding: 10)),
        Case(label: "metadata for another URL", metadata: meta(url: "https://other/x"), partLength: 10, expected: .fresh(discarding: 10)),
        Case(label: "strong ETag preferred", metadata: meta(), partLength: 10, expected: .resume(from: 10, ifRange: strong)),
        Case(label: "weak ETag never sent: Last-Modified instead", metadata: meta(etag: weak), partLength: 10, expected: .resume(from: 10, ifRange: date)),
        Case(label: "weak ETag and no date: no resume", metadata: meta(etag: weak, lastModified: nil), partLength: 10, expected: .fresh(discarding: 10)),
        Case(label: "no validators: no resume", metadata: meta(etag: nil, lastModified: nil), partLength: 10, expected: .fresh(discarding: 10)),
        Case(label: "Last-Modified only", metadata: meta(etag: nil), partLength: 10, expected: .resume(from: 10, ifRange: date)),
        Case(label: "partial longer than the resource", metadata: meta(size: 5), partLength: 10, expected: .fresh(discarding: 10)),
        Case(label: "complete partial still asks (416 confirms)", metadata: meta(), partLength: 1000, expected: .resume(from: 1000, ifRange: strong)),
        Case(label: "unknown size", metadata: meta(size: nil), partLength: 10, expected: .resume(from: 10, ifRange: strong)),
    ]

    @Test(arguments: cases)
    func plan(_ test: Case) {
        #expect(ResumePlanner.plan(url: url, metadata: test.metadata, partLength: test.partLength) == test.expected)
    }
}

@Suite("ResumePlanner: what a response means")
struct ResumeDecisionTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var label: String
        var plan: ResumePlanner.Plan
        var metadata: PartialDownload?
        var response: ResponseSummary
        var expected: ResumePlanner.Action
        var testDescription: String { label }
    }

    static let resume = ResumePlanner.Plan.resume(from: 400, ifRange: strong)
    static let fresh = ResumePlanner.Plan.fresh(discarding: 0)
    static let known = ResourceValidators(size: 1000, etag: strong, lastModified: date)

    static let cases: [Case] = [
        Case(
            label: "fresh 200", plan: fresh, metadata: nil,
            response: ResponseSummary(status: 200, contentLength: 1000, etag: strong, lastModified: date),
            expected: .writeFromStart(known, restart: nil)
        ),
        Case(
            label: "fresh 200 without length", plan: fresh, metadata: nil, response: ResponseSummary(status: 200),
            expected: .writeFromStart(ResourceValidators(size: nil, etag: nil, lastModified: nil), restart: nil)
        ),
        Case(
            label: "fresh 206 from 0 is usable", plan: fresh, metadata: nil,
            response: ResponseSummary(status: 206, contentRange: "bytes 0-99/1000", etag: strong),
            expected: .writeFromStart(ResourceValidators(size: 1000, etag: strong, lastModified: nil), restart: nil)
        ),
        Case(
            label: "fresh 206 elsewhere is retried", plan: fresh, metadata: nil,
            response: ResponseSummary(status: 206, contentRange: "bytes 5-99/1000"), expected: .retry(status: 206)
        ),
        Case(
            label: "resume 206 at the offset", plan: resume, metadata: meta(),
            response: ResponseSummary(status: 206, contentLength: 600, contentRange: "bytes 400-999/1000", etag: strong, lastModified: date),
            expected: .append(at: 400, known)
        ),
        Case(
            label: "resume 206 without validators keeps the stored ones", plan: resume, metadata: meta(),
            response: ResponseSummary(status: 206, contentRange: "bytes 400-999/1000"), expected: .append(at: 400, known)
        ),
        Case(
            label: "resume 206 at another offset", plan: resume, metadata: meta(),
            response: ResponseSummary(status: 206, contentRange: "bytes 0-999/1000"),
            expected: .restartWithoutRange(.unexpectedContentRange)
        ),
        Case(
            label: "resume 206 of another size", plan: resume, metadata: meta(),
            response: ResponseSummary(status: 206, contentRange: "bytes 400-1999/2000"),
            expected: .restartWithoutRange(.sizeOrValidatorMismatch)
        ),
        Case(
            label: "resume 206 with another ETag", plan: resume, metadata: meta(),
            response: ResponseSummary(status: 206, contentRange: "bytes 400-999/1000", etag: "\"new\""),
            expected: .restartWithoutRange(.sizeOrValidatorMismatch)
        ),
        Case(
            label: "resume 206 without Content-Range", plan: resume, metadata: meta(),
            response: ResponseSummary(status: 206), expected: .restartWithoutRange(.unexpectedContentRange)
        ),
        Case(
            label: "resume 206 with garbage Content-Range", plan: resume, metadata: meta(),
            response: ResponseSummary(status: 206, contentRange: "bytes 400-300/1000"),
            expected: .restartWithoutRange(.unexpectedContentRange)
        ),
        Case(
            label: "resume 206, shorter range (rest asked later)", plan: resume, metadata: meta(),
            response: ResponseSummary(status: 206, contentRange: "bytes 400-499/1000"), expected: .append(at: 400, known)
        ),
        Case(
            label: "resume 200 with a new ETag: changed", plan: resume, metadata: meta(),
            response: ResponseSummary(status: 200, contentLength: 1000, etag: "\"new\""),
            expected: .writeFromStart(ResourceValidators(size: 1000, etag: "\"new\"", lastModified: nil), restart: .resourceChanged)
        ),
        Case(
            label: "resume 200 with the same ETag: Range ignored", plan: resume, metadata: meta(),
            response: ResponseSummary(status: 200, contentLength: 1000, etag: strong, lastModified: date),
            expected: .writeFromStart(known, restart: .rangeIgnored)
        ),
        Case(
            label: "resume 200 with another size: changed", plan: resume, metadata: meta(),
            response: ResponseSummary(status: 200, contentLength: 999, etag: strong),
            expected: .writeFromStart(ResourceValidators(size: 999, etag: strong, lastModified: nil), restart: .resourceChanged)
        ),
        Case(
            label: "416 for a complete partial", plan: .resume(from: 1000, ifRange: strong), metadata: meta(),
            response: ResponseSummary(status: 416, contentRange: "bytes */1000"), expected: .alreadyComplete
        ),
        Case(
            label: "416 for an incomplete partial", plan: resume, metadata: meta(),
            response: ResponseSummary(status: 416, contentRange: "bytes */1000"),
            expected: .restartWithoutRange(.rangeNotSatisfiable)
        ),
        Case(
            label: "416 telling another size", plan: .resume(from: 1000, ifRange: strong), metadata: meta(),
            response: ResponseSummary(status: 416, contentRange: "bytes */5000"),
            expected: .restartWithoutRange(.sizeOrValidatorMismatch)
        ),
        Case(label: "503 retried", plan: resume, metadata: meta(), response: ResponseSummary(status: 503), expected: .retry(status: 503)),
        Case(label: "429 retried", plan: fresh, metadata: nil, response: ResponseSummary(status: 429), expected: .retry(status: 429)),
        Case(label: "408 retried", plan: fresh, metadata: nil, response: ResponseSummary(status: 408), expected: .retry(status: 408)),
        Case(label: "404 final", plan: fresh, metadata: nil, response: ResponseSummary(status: 404), expected: .fail(status: 404)),
        Case(label: "403 final", plan: resume, metadata: meta(), response: ResponseSummary(status: 403), expected: .fail(status: 403)),
        Case(label: "204 final", plan: fresh, metadata: nil, response: ResponseSummary(status: 204), expected: .fail(status: 204)),
        Case(label: "304 final", plan: fresh, metadata: nil, response: ResponseSummary(status: 304), expected: .fail(status: 304)),
        Case(label: "416 to a fresh request", plan: fresh, metadata: nil, response: ResponseSummary(status: 416), expected: .fail(status: 416)),
    ]

    @Test(arguments: cases)
    func decide(_ test: Case) {
        #expect(ResumePlanner.decide(plan: test.plan, metadata: test.metadata, response: test.response) == test.expected)
    }
}

@Suite("Header parsing")
struct HeaderParsingTests {
    @Test(arguments: [
        ("bytes 0-99/1000", ContentRange(range: 0...99, total: 1000)),
        ("bytes 400-999/1000", ContentRange(range: 400...999, total: 1000)),
        ("bytes 5-9/*", ContentRange(range: 5...9, total: nil)),
        ("bytes */1000", ContentRange(range: nil, total: 1000)),
        ("  bytes 1-1/2 ", ContentRange(range: 1...1, total: 2)),
    ] as [(String, ContentRange)])
    func contentRange(header: String, expected: ContentRange) {
        #expect(ContentRange(header) == expected)
    }

    @Test(arguments: ["", "bytes", "bytes 9-5/10", "bytes 0-10/10", "bytes */*", "items 0-1/2", "bytes a-b/c", "bytes 0-1"])
    func badContentRange(header: String) {
        #expect(ContentRange(header) == nil)
    }

    @Test func entityTags() {
        #expect(EntityTag.isStrong("\"abc\""))
        #expect(EntityTag.isStrong("\"\""))
        #expect(!EntityTag.isStrong("W/\"abc\""))
        #expect(!EntityTag.isStrong("abc"))
        #expect(!EntityTag.isStrong("\""))
    }

    @Test(arguments: [
        ("Sun, 06 Nov 1994 08:49:37 GMT", 784_111_777),
        ("Sunday, 06-Nov-94 08:49:37 GMT", 784_111_777),
        ("Sun Nov  6 08:49:37 1994", 784_111_777),
        ("Thu, 01 Jan 1970 00:00:00 GMT", 0),
        ("Tue, 29 Feb 2028 23:59:59 GMT", 1_835_481_599),
    ] as [(String, Int64)])
    func httpDates(text: String, epoch: Int64) {
        #expect(HTTPDate.parse(text) == epoch)
    }

    @Test(arguments: ["", "yesterday", "Sun, 06 Nov 1994 25:00:00 GMT", "Sun, 06 Foo 1994 08:49:37 GMT", "06 Nov 1994"])
    func badHTTPDates(text: String) {
        #expect(HTTPDate.parse(text) == nil)
    }
}

@Suite("RetryPolicy")
struct RetryPolicyTests {
    let policy = RetryPolicy(baseDelay: .milliseconds(100), maxDelay: .seconds(1), maxRetryAfter: .seconds(10))

    @Test func exponentialWithJitterAndCap() {
        #expect(policy.delay(afterFailure: 1, retryAfter: nil, jitter: 1) == .milliseconds(100))
        #expect(policy.delay(afterFailure: 1, retryAfter: nil, jitter: 0) == .milliseconds(50))
        #expect(policy.delay(afterFailure: 3, retryAfter: nil, jitter: 1) == .milliseconds(400))
        #expect(policy.delay(afterFailure: 10, retryAfter: nil, jitter: 1) == .seconds(1))
        #expect(policy.delay(afterFailure: 1000, retryAfter: nil, jitter: 0.5) == .milliseconds(750))
    }

    @Test func retryAfterIsHonouredAndCapped() {
        #expect(policy.delay(afterFailure: 1, retryAfter: .seconds(3), jitter: 0.2) == .seconds(3))
        #expect(policy.delay(afterFailure: 1, retryAfter: .seconds(3600), jitter: 0.2) == .seconds(10))
    }

    @Test func parsesRetryAfter() {
        let now: Int64 = 784_111_777
        #expect(RetryPolicy.parseRetryAfter("120", now: now) == .seconds(120))
        #expect(RetryPolicy.parseRetryAfter(" 0 ", now: now) == .zero)
        #expect(RetryPolicy.parseRetryAfter("Sun, 06 Nov 1994 08:50:37 GMT", now: now) == .seconds(60))
        #expect(RetryPolicy.parseRetryAfter("Sun, 06 Nov 1994 08:00:00 GMT", now: now) == .zero)
        #expect(RetryPolicy.parseRetryAfter("-5", now: now) == nil)
        #expect(RetryPolicy.parseRetryAfter("soon", now: now) == nil)
    }
}

@Suite("TransferError")
struct TransferErrorTests {
    @Test func descriptionsAreOneLineAndNameTheSubject() {
        let kinds: [TransferError.Kind] = [
            .invalidURL, .unreachable, .httpStatus(404), .notWritable, .diskFull, .checksumMismatch, .resourceChanged,
            .tlsFailure, .timedOut, .cancelled, .io,
        ]
        for kind in kinds {
            let error = TransferError(kind, url: "http://h/x", path: "/tmp/x", detail: "line one\nline two")
            #expect(!error.description.contains("\n"))
            #expect(error.description.contains("http://h/x"))
        }
        #expect(TransferError(.diskFull, url: "u", path: "/data/f").description.contains("/data/f"))
        #expect(TransferError(.httpStatus(404), url: "u").description.contains("404"))
    }
}

/// TLS errors reach users without the build machine's source paths.
@Suite("TLS error text")
struct TLSReasonTests {
    struct Opaque: Error, CustomStringConvertible {
        var description: String
    }

    @Test func sourceLocationsAreDropped() {
        let raw = Opaque(description: "handshakeFailed(sslError([Error: 1 error:10000410:SSL routines:OPENSSL_internal:SSLV3_ALERT_HANDSHAKE_FAILURE at /work/x/.build/checkouts/swift-nio-ssl/Sources/CNIOBoringSSL/ssl/tls_record.cc:592]))")
        let text = tlsReason(raw)
        #expect(!text.contains("/work/"))
        #expect(text.contains("SSLV3_ALERT_HANDSHAKE_FAILURE"))
        #expect(tlsReason(Opaque(description: "x CERTIFICATE_VERIFY_FAILED at /a/b.cc:1")) == "the server's certificate did not verify (CERTIFICATE_VERIFY_FAILED)")
    }
}
