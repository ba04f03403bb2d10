extension SystemdNotifier {
    /// The most bytes of UTF-8 a status line keeps: `systemctl status` shows one line.
    static let statusLineLimit = 200

    /// `text` as one line fit for `STATUS=`: every control character (newlines, tabs, escape
    /// sequences) becomes a space, and the result is cut to at most 200 bytes of UTF-8 without
    /// splitting a character.
    ///
    /// ``send(_:)`` applies it to every `STATUS` value, so callers need it only to see what
    /// will be shown.
    public static func statusLine(_ text: String) -> String {
        var line = String.UnicodeScalarView()
        var bytes = 0
        for scalar in text.unicodeScalars {
            let shown: Unicode.Scalar = scalar.properties.generalCategory == .control ? " " : scalar
            bytes += UTF8.width(shown)
            guard bytes <= statusLineLimit else { break }
            line.append(shown)
        }
        return String(line)
    }
}
