import Foundation
import ReachabilityCore
import Testing

@Suite("PathJSON")
struct PathJSONTests {
    private func encoderText(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    static let paths: [NetworkPath] = evaluatorCases.map { row in
        PathEvaluator(classifier: Classifier(overrides: row.overrides.compactMap { try? OverrideRule(parsing: $0) })).evaluate(row.snapshot)
    } + [
        NetworkPath(
            status: .other, interfaces: [
                Interface(name: "we\"ird\\name\u{1}\t/é", index: 7, type: .other, isExpensive: false, isUp: true, isRunning: false,
                          addresses: [], evidence: ["name=x -> other (a \"quote\")"])
            ], identity: PathIdentity(interface: "x", index: 7, gateways: ["fe80::1"], prefixes: [], underlay: "u"))
    ]

    @Test(arguments: paths)
    func writesWhatJSONEncoderWrites(_ path: NetworkPath) throws {
        #expect(PathJSON.text(path) == (try encoderText(path)))
        #expect(PathJSON.text(path.interfaces) == (try encoderText(path.interfaces)))
    }

    @Test func theTimeFieldComesFirstAndTheLineRoundTrips() throws {
        let path = try #require(Self.paths.first { $0.status == .wifi })
        let line = PathJSON.text(path, time: "2026-11-22T10:00:00.123Z")
        #expect(line.hasPrefix("{\"time\":\"2026-11-22T10:00:00.123Z\",\"expensive\":"))
        let decoded = try JSONDecoder().decode(NetworkPath.self, from: Data(line.utf8))
        #expect(decoded == path)
    }
}
