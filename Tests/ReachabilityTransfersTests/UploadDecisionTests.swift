import Testing

@testable import ReachabilityTransfers

@Suite("Uploads: what each answer means")
struct UploadDecisionTests {
    @Test(arguments: [
        (200, "0", "1000", TusProtocol.HeadDecision.resume(offset: 0)),
        (200, "400", "1000", .resume(offset: 400)),
        (204, "1000", nil, .resume(offset: 1000)),
        (200, "400", "999", .recreate(reason: "the server's Upload-Length 999 is not the file's size 1000")),
        (200, "1001", "1000", .recreate(reason: "the server's offset 1001 is past the file's end")),
        (200, nil, "1000", .recreate(reason: "no Upload-Offset in the answer")),
        (200, "-5", "1000", .recreate(reason: "no Upload-Offset in the answer")),
        (200, "12abc", "1000", .recreate(reason: "no Upload-Offset in the answer")),
        (404, nil, nil, .recreate(reason: "the server no longer has the upload (HTTP 404)")),
        (410, nil, nil, .recreate(reason: "the server no longer has the upload (HTTP 410)")),
        (403, nil, nil, .recreate(reason: "the server refuses the upload (HTTP 403)")),
        (503, nil, nil, .retry(status: 503)),
        (429, nil, nil, .retry(status: 429)),
        (401, nil, nil, .fail(status: 401)),
        (412, nil, nil, .fail(status: 412)),
    ] as [(Int, String?, String?, TusProtocol.HeadDecision)])
    func headTellsWhereToResume(_ status: Int, _ offset: String?, _ length: String?, _ expected: TusProtocol.HeadDecision) {
        #expect(TusProtocol.decideHead(status: status, offset: offset, length: length, size: 1000) == expected)
    }

    @Test(arguments: [
        (204, "600", TusProtocol.PatchDecision.advanced(offset: 600)),
        (204, "1000", .advanced(offset: 1000)),
        (204, nil, .resynchronize),
        (204, "1200", .resynchronize),
        (409, nil, .resynchronize),
        (404, nil, .recreate(reason: "the server no longer has the upload (HTTP 404)")),
        (410, nil, .recreate(reason: "the server no longer has the upload (HTTP 410)")),
        (500, nil, .retry(status: 500)),
        (408, nil, .retry(status: 408)),
        (415, nil, .fail(status: 415)),
        (413, nil, .fail(status: 413)),
        // Sent from 400: an offset that does not move past it is a PATCH that did not land.
        (204, "400", .stalled(offset: 400)),
        (204, "300", .stalled(offset: 300)),
        (204, "401", .advanced(offset: 401)),
    ] as [(Int, String?, TusProtocol.PatchDecision)])
    func patchAnswersAdvanceOrResynchronize(_ status: Int, _ offset: String?, _ expected: TusProtocol.PatchDecision) {
        #expect(TusProtocol.decidePatch(status: status, offset: offset, sentFrom: 400, size: 1000) == expected)
        // The whole file already there is never a stall (nothing was left to send).
        #expect(TusProtocol.decidePatch(status: 204, offset: "1000", sentFrom: 1000, size: 1000) == .advanced(offset: 1000))
    }

    @Test(arguments: [
        (204, "1.0.0", "1.0.0", true),
        (200, nil, "1.0.0,0.2.2", true),
        (200, "1.0.0", nil, true),
        (200, nil, "0.2.2", false),
        (200, nil, nil, false),
        (405, "1.0.0", "1.0.0", false),
        (501, nil, nil, false),
    ] as [(Int, String?, String?, Bool)])
    func optionsRevealATusServer(_ status: Int, _ resumable: String?, _ versions: String?, _ expected: Bool) {
        #expect(TusProtocol.speaksTus(status: status, tusResumable: resumable, tusVersion: versions) == expected)
    }

    @Test(arguments: [
        (204, "1.0.0", TusProtocol.Detection.tus),
        (200, nil, .plain),
        (404, nil, .plain),
        // What a server without OPTIONS answers (Python's http.server: 501): no tus, no retries.
        (501, nil, .plain),
        (405, nil, .plain),
        (405, "1.0.0", .plain),
        (503, nil, .retry),
        (500, nil, .retry),
        (429, nil, .retry),
    ] as [(Int, String?, TusProtocol.Detection)])
    func detectionTakesNotImplementedAsNoTus(_ status: Int, _ version: String?, _ expected: TusProtocol.Detection) {
        #expect(TusProtocol.detection(status: status, tusResumable: version, tusVersion: version) == expected)
    }

    @Test(arguments: [
        (200, UploadStatus.Decision.success), (201, .success), (204, .success),
        (301, .fail), (307, .fail), (400, .fail), (401, .fail), (404, .fail), (413, .fail),
        (408, .retry), (429, .retry), (500, .retry), (502, .retry), (503, .retry),
    ])
    func plainUploadsRetryOnlyWhatMayGoAway(_ status: Int, _ expected: UploadStatus.Decision) {
        #expect(UploadStatus.decide(status) == expected)
    }

    private static let source = SourceIdentity(size: 1000, modified: 1_700_000_000_000_000_000, inode: 42, device: 7)
    private static let file = "/data/a.bin"
    private static let url = "http://127.0.0.1:8080/files/"

    private static func record(
        file: String = file, url: String = url, location: String = "http://127.0.0.1:8080/files/u1", source: SourceIdentity = source,
        version: Int = ResumeRecord.currentVersion
    ) -> ResumeRecord {
        var record = ResumeRecord(file: file, url: url, location: location, source: source, offset: 100)
        record.version = version
        return record
    }

    @Test(arguments: [
        ("no record", nil, ResumeDecision.fresh),
        ("same file, same version", record(), .resume(location: "http://127.0.0.1:8080/files/u1")),
        ("newer record format", record(version: 2), .discard(reason: "unknown record version 2")),
        ("another file", record(file: "/data/b.bin"), .discard(reason: "the record is for another file or URL")),
        ("another URL", record(url: "http://127.0.0.1:8080/other/"), .discard(reason: "the record is for another file or URL")),
        ("grown", record(source: SourceIdentity(size: 1001, modified: source.modified, inode: 42, device: 7)),
         .discard(reason: "the file changed since the upload was created")),
        ("touched", record(source: SourceIdentity(size: 1000, modified: source.modified + 1, inode: 42, device: 7)),
         .discard(reason: "the file changed since the upload was created")),
        ("replaced (new inode)", record(source: SourceIdentity(size: 1000, modified: source.modified, inode: 43, device: 7)),
         .discard(reason: "the file changed since the upload was created")),
        ("location not http", record(location: "file:///etc/passwd"), .discard(reason: "the record's upload URL is not an http(s) URL")),
    ] as [(String, ResumeRecord?, ResumeDecision)])
    func resumeRecordsAreContinuedOnlyForTheSameFileVersion(_ label: String, _ record: ResumeRecord?, _ expected: ResumeDecision) {
        #expect(ResumeDecision.decide(record: record, file: Self.file, url: Self.url, source: Self.source) == expected, "\(label)")
    }

    @Test func resumeKeysDependOnFileAndURLOnly() {
        let key = ResumeStore.key(file: "/a", url: "http://h/x")
        #expect(key.count == 32 && key.allSatisfy(\.isHexDigit))
        #expect(key == ResumeStore.key(file: "/a", url: "http://h/x"))
        #expect(key != ResumeStore.key(file: "/b", url: "http://h/x"))
        #expect(key != ResumeStore.key(file: "/a", url: "http://h/y"))
        // No separator ambiguity: ("/a", "bc") and ("/ab", "c") differ.
        #expect(ResumeStore.key(file: "/a", url: "bc") != ResumeStore.key(file: "/ab", url: "c"))
    }

    /// Bytes handed over by an interrupted attempt that the server's offset does not cover are
    /// counted as sent again; sent - resent always equals what the server got from us.
    @Test(arguments: [
        // (offset when first asked, [(handed, server offset after)], expected resent)
        (0, [(600, 600), (400, 1000)], 0),
        (0, [(600, 450), (550, 1000)], 150),
        (300, [(500, 650), (350, 1000)], 150),
        (0, [(1000, 0), (1000, 1000)], 1000),
    ] as [(Int64, [(Int64, Int64)], Int64)])
    func ledgerCountsBytesThatNeverArrived(_ first: Int64, _ attempts: [(Int64, Int64)], _ resent: Int64) {
        var ledger = UploadLedger()
        ledger.serverHolds(first)
        var position = first
        for (handed, serverOffset) in attempts {
            ledger.sent += handed
            ledger.inFlightEnd = position + handed
            ledger.serverHolds(serverOffset)
            position = serverOffset
        }
        #expect(ledger.resent == resent)
        #expect(ledger.resumedFrom == first)
        #expect(ledger.sent - ledger.resent == 1000 - first)
    }

    @Test func aRestartedUploadCountsEverythingSentBeforeAsSentAgain() {
        var ledger = UploadLedger()
        ledger.serverHolds(200)
        ledger.sent = 500
        ledger.inFlightEnd = 700
        ledger.restart()
        #expect(ledger.resent == 500)
        #expect(ledger.resumedFrom == 0)
        #expect(ledger.inFlightEnd == nil)
        ledger.sent += 1000
        #expect(ledger.sent - ledger.resent == 1000)
    }
}
