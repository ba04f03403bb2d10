/// The text of one notification datagram: `KEY=VALUE` assignments joined by newlines.
enum NotifyMessage {
    /// The largest datagram the service manager reads (its buffer is `PIPE_BUF`); it drops
    /// longer ones whole, so they are refused here instead.
    static let maximumBytes = 4096

    /// The datagram for `assignments`. `STATUS` values are made one line
    /// (``SystemdNotifier/statusLine(_:)``); any other value with a newline or NUL is refused,
    /// since it would end the assignment early and inject another.
    static func encode(_ assignments: [(String, String)]) throws(SystemdNotifyError) -> [UInt8] {
        guard !assignments.isEmpty else { throw SystemdNotifyError(.invalidMessage, "no assignments to send") }
        var lines: [String] = []
        for (key, value) in assignments {
            guard isValidKey(key) else { throw SystemdNotifyError(.invalidMessage, "invalid notification key \"\(key)\"") }
            let text = key == "STATUS" ? SystemdNotifier.statusLine(value) : value
            guard !text.utf8.contains(where: { $0 == 0x0A || $0 == 0 }) else {
                throw SystemdNotifyError(.invalidMessage, "the value of \(key) contains a newline or NUL byte")
            }
            lines.append("\(key)=\(text)")
        }
        let bytes = Array(lines.joined(separator: "\n").utf8)
        guard bytes.count <= maximumBytes else {
            throw SystemdNotifyError(.invalidMessage, "notification of \(bytes.count) bytes exceeds \(maximumBytes)")
        }
        return bytes
    }

    /// Keys are what systemd uses and documents for custom fields: ASCII letters, digits and
    /// underscores (`READY`, `STATUS`, `X_MY_FIELD`).
    static func isValidKey(_ key: String) -> Bool {
        !key.isEmpty
            && key.utf8.allSatisfy { byte in
                (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x30 && byte <= 0x39) || byte == 0x5F
            }
    }
}
