import Foundation
import ReachabilityCore
@testable import ReachabilityDaemon
import ReachabilityTransfers
import Testing

@Suite("Queue states and job acceptance")
struct QueueDecisionTests {
    @Test func relativePathsResolveAgainstTheClientsDirectoryAndADirectoryGetsTheURLsName() throws {
        let directory = FileManager.default.temporaryDirectory.path
        let spec = QueueJobSpec(kind: .download, download: DownloadSpec(url: "http://127.0.0.1:1/a/file.iso?x=1", destination: "."))
        let accepted = try spec.accepted(workingDirectory: directory)
        #expect(accepted.spec.download?.destination == directory + "/./file.iso")
        let upload = try QueueJobSpec(kind: .upload, upload: UploadSpec(file: "data.bin", url: "http://h/up")).accepted(workingDirectory: "/srv")
        #expect(upload.spec.upload?.file == "/srv/data.bin")
        let command = try QueueJobSpec(kind: .command, command: CommandSpec(arguments: ["make"])).accepted(workingDirectory: "/src")
        #expect(command.spec.command?.workingDirectory == "/src")
    }

    @Test func credentialsAreKeptOutOfTheStoredSpec() throws {
        let spec = QueueJobSpec(
            kind: .download,
            download: DownloadSpec(url: "https://user:hunter2@example.com/f?token=abc", destination: "/tmp/f", headers: ["Authorization: Bearer xyz", "X-Trace: 1"]))
        let accepted = try spec.accepted(workingDirectory: nil)
        #expect(accepted.hasSecrets)
        let stored = String(decoding: try QueueJSON.encode(accepted.stored), as: UTF8.self)
        for secret in ["hunter2", "abc", "xyz"] { #expect(!stored.contains(secret)) }
        #expect(stored.contains("X-Trace: 1"))
        #expect(accepted.spec.download?.url.contains("hunter2") == true)
        let plain = try QueueJobSpec(kind: .download, download: DownloadSpec(url: "http://example.com/f", destination: "/tmp/f")).accepted(workingDirectory: nil)
        #expect(!plain.hasSecrets)
    }

    @Test(arguments: [
        QueueJobSpec(kind: .download),
        QueueJobSpec(kind: .download, download: DownloadSpec(url: "ftp://host/x", destination: "/x")),
        QueueJobSpec(kind: .download, download: DownloadSpec(url: "http://host:99999/x", destination: "/x")),
        QueueJobSpec(kind: .download, download: DownloadSpec(url: "http://host/x", destination: "relative")),
        QueueJobSpec(kind: .download, download: DownloadSpec(url: "http://host/x", destination: "/x", sha256: "nothex")),
        QueueJobSpec(kind: .download, download: DownloadSpec(url: "http://host/x", destination: "/x", headers: ["Range: bytes=0-"])),
        QueueJobSpec(kind: .download, download: DownloadSpec(url: "http://host/x", destination: "/x", connections: 17)),
        QueueJobSpec(kind: .download, download: DownloadSpec(url: "http://host/x", destination: "/x"), maxAttempts: 0),
        QueueJobSpec(kind: .download, download: DownloadSpec(url: "http://host/x", destination: "/x"), constraints: QueueConstraints(when: "never")),
        QueueJobSpec(kind: .download, download: DownloadSpec(url: "http://host/x", destination: "/x"), constraints: QueueConstraints(settleSeconds: .infinity)),
        QueueJobSpec(kind: .command, command: CommandSpec(arguments: [])),
        QueueJobSpec(kind: .command, command: CommandSpec(arguments: ["x"], onDisallow: "explode")),
        QueueJobSpec(kind: QueueJobKind(rawValue: "teleport")),
    ])
    func badSpecsAreRefusedWithAMessage(spec: QueueJobSpec) {
        #expect(throws: QueueError.self) { try spec.accepted(workingDirectory: nil) }
        do { _ = try spec.accepted(workingDirectory: nil) } catch { #expect(error.httpStatus == 400 && !error.message.isEmpty) }
    }

    @Test func policiesFollowTheConstraints() {
        #expect(QueueJobSpec(kind: .download, constraints: QueueConstraints(when: "unmetered")).policy.allowsExpensive == false)
        #expect(QueueJobSpec(kind: .download, constraints: QueueConstraints(when: "wifi")).policy.allowedStatuses == [.wifi])
        let limited = QueueJobSpec(kind: .download, constraints: QueueConstraints(noCellular: true, maxCellularBytes: 5, settleSeconds: 0.5)).policy
        #expect(!limited.allowsCellular && limited.cellularSizeLimit == 5 && limited.resumeAfter == .milliseconds(500))
    }
}

@Suite("Queue timestamps")
struct QueueTimeTests {
    /// The arithmetic form agrees with Foundation's ISO 8601 formatter, both ways, across
    /// leap years, month ends and the epoch.
    @Test(arguments: [0.0, 951_782_400, 951_868_799, 1_709_164_800, 1_798_761_599, 1_800_000_000.9, 4_102_444_800, -86_400])
    func arithmeticMatchesFoundation(seconds: Double) throws {
        let date = Date(timeIntervalSince1970: seconds)
        let reference = ISO8601DateFormatter().string(from: date)
        #expect(UTCTimestamp.text(date) == reference)
        let parsed = try #require(QueueTime.parse(reference))
        #expect(parsed == ISO8601DateFormatter().date(from: reference))
    }

    @Test(arguments: ["2026-13-01T00:00:00Z", "2026-11-24T24:00:00Z", "2026-11-24 10:00:00Z", "2026-11-24T10:00:00", "", "x"])
    func otherTextIsRefused(text: String) {
        #expect(QueueTime.parse(text) == nil)
    }

    @Test func offsetsAndFractionsStillParse() {
        #expect(QueueTime.parse("2026-11-24T12:00:00+02:00") == QueueTime.parse("2026-11-24T10:00:00Z"))
        #expect(QueueTime.parse("2026-11-24T10:00:00.500Z")?.timeIntervalSince1970 == 1_795_514_400.5)
    }
}

/// What schemathesis found the server too lenient about.
@Suite("Request checks")
struct RequestCheckTests {
    @Test(arguments: [("5", Int64?(5)), ("+5", nil), (" 5", nil), ("0", nil), ("-1", nil), ("9223372036854775807", Int64.max), ("9223372036854775808", nil), ("", nil)])
    func jobIDsAreASCIIDigits(_ text: String, _ id: Int64?) {
        #expect(QueueAPI.jobID(text) == id)
    }

    @Test func aPathIsAbsoluteByItsFirstByteAndAHashIsASCIIHex() throws {
        let combining = QueueJobSpec(kind: .command, command: CommandSpec(arguments: ["true"]))
        #expect(throws: Never.self) { try combining.accepted(workingDirectory: "/\u{0301}") }
        let fullwidth = QueueJobSpec(kind: .download, download: DownloadSpec(url: "http://127.0.0.1:9/f", destination: "/tmp/f", sha256: String(repeating: "０", count: 64)))
        #expect(throws: QueueError.self) { try fullwidth.accepted(workingDirectory: nil) }
        let hostHeader = QueueJobSpec(kind: .upload, upload: UploadSpec(file: "/etc/hostname", url: "http://127.0.0.1:9/u", headers: ["Host: elsewhere"]))
        #expect(throws: QueueError.self) { try hostHeader.accepted(workingDirectory: nil) }
    }
}
