/// Text from outside (a job's URL or title, a server's message, a file name) made safe to print
/// on a terminal: control characters (C0, DEL, C1 — an escape sequence could retitle the
/// window, move the cursor or hide what follows) are shown as `\x1b`-style escapes.
public enum TerminalText {
    /// `text` with each control character written as an escape (`\x1b`, `\u{2028}`).
    public static func safe(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        var out = ""
        out.reserveCapacity(text.utf8.count + 8)
        for scalar in text.unicodeScalars {
            if isControl(scalar) {
                let hex = String(scalar.value, radix: 16)
                out += scalar.value < 0x100 ? "\\x" + (hex.count == 1 ? "0" + hex : hex) : "\\u{" + hex + "}"
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (scalar.value >= 0x7F && scalar.value < 0xA0) || scalar.value == 0x2028 || scalar.value == 0x2029
    }
}
