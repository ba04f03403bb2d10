import Foundation
@testable import ReachabilityDaemon
import Testing

/// A request body's misspelt field is refused, named by its path; what the daemon stored or a
/// newer daemon answers is read leniently.
@Suite struct UnknownFieldTests {
    static let cases: [(body: String, path: String)] = [
        (#"{"job":{"kind":"download","download":{"url":"http://h/x","sha265":"00"}}}"#, "job.download.sha265"),
        (#"{"job":{"kind":"download","download":{"url":"http://h/x"},"constraints":{"noCelluar":true}}}"#, "job.constraints.noCelluar"),
        (#"{"job":{"kind":"command","command":{"arguments":["true"],"killAfter":3}}}"#, "job.command.killAfter"),
        (#"{"job":{"kind":"upload","upload":{"file":"/f","url":"http://h/","from":"x"}}}"#, "job.upload.from"),
        (#"{"job":{"kind":"command","command":{"arguments":["true"]},"retries":3}}"#, "job.retries"),
        (#"{"wd":"/tmp","job":{"kind":"command","command":{"arguments":["true"]}}}"#, "wd"),
        // Two unknown keys: the first in alphabetical order is named.
        (#"{"job":{"kind":"command","command":{"arguments":["true"]},"zeta":1,"alpha":2}}"#, "job.alpha"),
    ]

    @Test(arguments: cases)
    func aMisspeltFieldIsNamed(_ body: String, _ path: String) {
        let error = #expect(throws: QueueJSON.UnknownField.self) {
            try QueueJSON.decode(QueueAddRequest.self, from: Data(body.utf8), rejectingUnknownFields: true)
        }
        #expect(error?.path == path)
        #expect(QueueJSON.explain(error!) == "unknown field \(path)")
    }

    @Test func knownFieldsAndNullsPassAndStoredJobsStayLenient() throws {
        let valid = #"{"workingDirectory":"/tmp","job":{"kind":"download","download":{"url":"http://h/x","sha256":null},"upload":null,"constraints":{"when":"wifi","settleSeconds":2}}}"#
        let request = try QueueJSON.decode(QueueAddRequest.self, from: Data(valid.utf8), rejectingUnknownFields: true)
        #expect(request.job.constraints.when == "wifi")
        // Without the flag (the database, a newer daemon's answer) unknown keys are ignored.
        let future = #"{"job":{"kind":"command","command":{"arguments":["true"],"future":1}},"also":2}"#
        #expect(try QueueJSON.decode(QueueAddRequest.self, from: Data(future.utf8)).job.command?.arguments == ["true"])
        // And what is encoded reads back with the flag on: the keys are one definition.
        let spec = QueueJobSpec(
            kind: .upload, upload: UploadSpec(file: "/f", url: "http://h/", form: "file", headers: ["X-A: 1"], caFile: "/ca"),
            constraints: QueueConstraints(when: "unmetered", noCellular: true, noExpensive: true, maxCellularBytes: 5, settleSeconds: 1),
            priority: nil, notBefore: Date(timeIntervalSince1970: 1_800_000_000), maxAttempts: 3)
        let encoded = try QueueJSON.encode(QueueAddRequest(workingDirectory: "/w", job: spec))
        #expect(try QueueJSON.decode(QueueAddRequest.self, from: encoded, rejectingUnknownFields: true).job == spec)
    }
}
