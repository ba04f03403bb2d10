public import FoundationEssentials

/// The queue's JSON: ISO 8601 dates, sorted keys (stable output for people and diffs).
public enum QueueJSON {
    /// Encodes `value`.
    public static func encode<T: Encodable>(_ value: T) throws -> Data {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(QueueTime.text(date))
        }
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(value)
    }

    /// Decodes a `T` from `data`. With `rejectingUnknownFields`, an object key the type does not
    /// know throws ``UnknownField`` naming it (a request body: `sha265` must not be dropped and
    /// the job run unchecked); without, unknown keys are ignored (what the daemon stored, an
    /// answer from a newer daemon).
    public static func decode<T: Decodable>(_ type: T.Type, from data: Data, rejectingUnknownFields: Bool = false) throws -> T {
        let decoder = JSONDecoder()
        if rejectingUnknownFields { decoder.userInfo[rejectsUnknownFields] = true }
        decoder.dateDecodingStrategy = .custom { decoder in
            let text = try decoder.singleValueContainer().decode(String.self)
            guard let date = QueueTime.parse(text) else {
                throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not an ISO 8601 time: \(text.prefix(64))"))
            }
            return date
        }
        return try decoder.decode(type, from: data)
    }

    /// A key in a request body that its object does not have: `job.download.sha265`.
    public struct UnknownField: Error, Sendable, Hashable, CustomStringConvertible {
        /// The key's path from the body's root.
        public let path: String
        public var description: String { "unknown field \(path)" }
    }

    static let rejectsUnknownFields = CodingUserInfoKey(rawValue: "reach.rejectsUnknownFields")!

    private struct AnyKey: CodingKey {
        let stringValue: String
        let intValue: Int? = nil
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    /// When the decoder was asked to (``decode(_:from:rejectingUnknownFields:)``), throws
    /// ``UnknownField`` for the first key of the object `decoder` stands at that is not one of
    /// `Keys` (first in alphabetical order: JSON objects have none of their own).
    static func rejectUnknownKeys<Keys: CodingKey & CaseIterable>(_ keys: Keys.Type, in decoder: any Decoder) throws {
        guard decoder.userInfo[rejectsUnknownFields] as? Bool == true else { return }
        let known = Set(Keys.allCases.map(\.stringValue))
        let present = try decoder.container(keyedBy: AnyKey.self).allKeys.map(\.stringValue)
        if let unknown = present.filter({ !known.contains($0) }).min() {
            throw UnknownField(path: path(decoder.codingPath + [AnyKey(stringValue: unknown)]))
        }
    }

    /// What a decoding error says, in one line, without the input.
    public static func explain(_ error: any Error) -> String {
        if let unknown = error as? UnknownField { return unknown.description }
        guard let error = error as? DecodingError else { return "not valid JSON" }
        switch error {
        case .keyNotFound(let key, let context): return "missing \(path(context.codingPath + [key]))"
        case .typeMismatch(_, let context), .valueNotFound(_, let context):
            return "wrong type at \(path(context.codingPath))"
        case .dataCorrupted(let context):
            return context.codingPath.isEmpty ? "not valid JSON" : "bad value at \(path(context.codingPath)): \(context.debugDescription.prefix(120))"
        @unknown default: return "not valid JSON"
        }
    }

    private static func path(_ keys: [any CodingKey]) -> String {
        keys.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
    }
}
